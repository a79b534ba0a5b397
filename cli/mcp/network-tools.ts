// The MCP tools of a sandbox's network (docs/api.md, Egress): its egress policy in force, and a
// change of it while it runs. Each one call of the TypeScript SDK, like the other tools (tools.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Client } from '../../sdk/typescript/src/index.ts';
import { guarded, text } from './tool-results.ts';
import { egressArg } from './tools.ts';

const sandboxId = z.string().describe('The sandbox id (sb-…), from create_sandbox or list_sandboxes');

export function registerNetworkTools(server: McpServer, client: Client): void {
  server.registerTool(
    'sandbox_network',
    {
      description: "The sandbox's egress policy in force, and the modes its Mac enforces.",
      inputSchema: { sandbox_id: sandboxId },
    },
    (a) => guarded(async () => text(await client.sandbox(a.sandbox_id).network())),
  );

  server.registerTool(
    'set_sandbox_egress',
    {
      description:
        "Change a running sandbox's egress policy: mode none (nothing leaves the VM), all, or allow (only " +
        'the listed addresses, CIDRs and domains). Returns once it is in force.',
      inputSchema: { sandbox_id: sandboxId, egress: egressArg },
    },
    (a) => guarded(async () => text(await client.sandbox(a.sandbox_id).setEgress(a.egress))),
  );
}
