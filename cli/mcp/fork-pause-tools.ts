// The MCP tools that fork a sandbox and pause or resume it (docs/api.md, Fork; Pause and resume).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Client } from '../../sdk/typescript/src/index.ts';
import { guarded, text } from './tool-results.ts';

const sandboxId = z.string().describe('The sandbox id (sb-…), from create_sandbox or list_sandboxes');

export function registerForkPauseTools(server: McpServer, client: Client): void {
  server.registerTool(
    'fork_sandbox',
    {
      description:
        'Fork a running sandbox into `count` new sandboxes, each started from a copy of its disk (apps start ' +
        'fresh: the disk is copied, not the memory). All fit on the reservation or none is made. Returns them.',
      inputSchema: { sandbox_id: sandboxId, count: z.number().int().min(1).max(32).optional() },
    },
    (a) =>
      guarded(async () => {
        const { sandboxes } = await client.sandbox(a.sandbox_id).fork(a.count ?? 1);
        return text(sandboxes);
      }),
  );

  server.registerTool(
    'pause_sandbox',
    {
      description:
        'Pause a sandbox: frozen where it is, memory kept, no CPU used. Every other call on it fails with ' +
        'sandbox_paused until resume_sandbox.',
      inputSchema: { sandbox_id: sandboxId },
    },
    (a) => guarded(async () => text(await client.sandbox(a.sandbox_id).pause())),
  );

  server.registerTool(
    'resume_sandbox',
    {
      description: 'Resume a paused sandbox: it goes on from where it was.',
      inputSchema: { sandbox_id: sandboxId },
    },
    (a) => guarded(async () => text(await client.sandbox(a.sandbox_id).resume())),
  );
}
