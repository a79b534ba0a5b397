// The MCP tools for streaming exec, forwarded ports and the clipboard, each one call of the
// TypeScript SDK. `exec_stream` sends the output as MCP progress notifications while the command
// runs (when the client asked for progress with a progressToken), and answers with all of it and the
// exit code: an agent sees a long build or test run move instead of waiting blind.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Client } from '../../sdk/typescript/src/index.ts';
import { guarded, text } from './tool-results.ts';
import { base64, sandboxId } from './tools.ts';

export function registerStreamTools(server: McpServer, client: Client): void {
  const sb = (id: string) => client.sandbox(id);

  server.registerTool(
    'exec_stream',
    {
      description:
        'Run a shell command whose output arrives while it runs (as progress notifications, when asked for ' +
        'with a progressToken); answers stdout, stderr, exit_code, timed_out at its end. For long builds and test runs.',
      inputSchema: {
        sandbox_id: sandboxId,
        command: z.string().min(1),
        stdin: z.string().optional().describe('Text written to its stdin, which is then closed'),
        timeout: z.number().int().min(1).max(86_400).optional().describe('Seconds; then exit code 124'),
      },
    },
    (a, extra) =>
      guarded(async () => {
        const token = extra._meta?.progressToken;
        let progress = 0;
        const notify = (stream: 'stdout' | 'stderr') => (data: string) => {
          if (token === undefined) return;
          void extra
            .sendNotification({
              method: 'notifications/progress',
              params: {
                progressToken: token,
                progress: ++progress,
                message: stream === 'stderr' ? `stderr: ${data}` : data,
              },
            })
            .catch(() => undefined);
        };
        const stream = await sb(a.sandbox_id).execStream(a.command, {
          ...(a.stdin !== undefined && { stdin: true }),
          ...(a.timeout !== undefined && { timeout: a.timeout }),
          onStdout: notify('stdout'),
          onStderr: notify('stderr'),
        });
        if (a.stdin !== undefined) {
          stream.write(a.stdin);
          stream.closeStdin();
        }
        return text(await stream.wait());
      }),
  );

  server.registerTool(
    'port_url',
    {
      description:
        'A URL that reaches a server listening on a port inside the sandbox (HTTP and WebSocket), valid for up to an hour; opens in a browser as is.',
      inputSchema: {
        sandbox_id: sandboxId,
        port: z.number().int().min(1).max(65535),
        path: z.string().optional().describe('Path on that server, default /'),
      },
    },
    (a) =>
      guarded(async () =>
        text(await sb(a.sandbox_id).portUrl(a.port, a.path !== undefined ? { path: a.path } : {})),
      ),
  );

  server.registerTool(
    'get_clipboard',
    {
      description: "What the sandbox's clipboard holds: its text, or its image.",
      inputSchema: {
        sandbox_id: sandboxId,
        type: z.enum(['text', 'image']).optional().describe('Which one when it holds both; default text'),
      },
    },
    (a) =>
      guarded(async (): Promise<CallToolResult> => {
        const c = await sb(a.sandbox_id).clipboard.get(a.type ? { type: a.type } : {});
        if (c.type === 'image')
          return { content: [{ type: 'image', data: base64(c.data), mimeType: c.mimeType }] };
        return text(c.type === 'text' ? c.text : '(the clipboard is empty)');
      }),
  );

  server.registerTool(
    'set_clipboard',
    {
      description:
        "Put text (or, with encoding=base64, a PNG image) on the sandbox's clipboard; paste=true then pastes it (cmd+v) into the focused window.",
      inputSchema: {
        sandbox_id: sandboxId,
        content: z.string(),
        encoding: z
          .enum(['utf8', 'base64'])
          .optional()
          .describe('base64: content is a PNG image; default utf8 text'),
        paste: z.boolean().optional(),
      },
    },
    (a) =>
      guarded(async () => {
        const s = sb(a.sandbox_id);
        if (a.encoding === 'base64')
          await s.clipboard.setImage(new Uint8Array(Buffer.from(a.content, 'base64')));
        else await s.clipboard.setText(a.content);
        if (a.paste) await s.keyboard.hotkey('cmd+v');
        return text('clipboard set');
      }),
  );
}
