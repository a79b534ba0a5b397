// The MCP tools of `sandbay mcp`: reservations and sandboxes, and a sandbox's screen, pointer,
// keyboard, shell, files and windows, each one call of the TypeScript SDK. Arguments are snake_case
// like the API's fields. An API error is a tool error naming the API's code (the agent can react to
// `no_warm_vm` or `sandbox_not_found`), not a protocol error.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Client } from '../../sdk/typescript/src/index.ts';
import { guarded, text } from './tool-results.ts';

export const sandboxId = z.string().describe('The sandbox id (sb-…), from create_sandbox or list_sandboxes');
const coord = z.number().int().min(0).max(65535);
const button = z.enum(['left', 'right']).optional().describe('Default left');

/** An egress policy as the API takes it (docs/api.md, Egress). */
export const egressArg = z
  .object({
    mode: z.enum(['none', 'all', 'allow']),
    allow: z
      .array(z.string())
      .optional()
      .describe('With mode allow: IPv4 addresses or CIDRs, and domains (*.example.com for subdomains)'),
  })
  .describe("Where the VM may connect to; default: its Mac's");

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function registerSandbayTools(server: McpServer, client: Client): void {
  const sb = (id: string) => client.sandbox(id);

  server.registerTool(
    'reserve',
    {
      description: 'Buy a reservation of Macs (account key): at least 24 hours. Returns it with its key.',
      inputSchema: {
        hours: z.number().int().min(24),
        mini_count: z.number().int().min(1).optional(),
        mac_model: z.enum(['m4', 'm4-pro', 'm5-pro']).optional(),
        vm_layout: z.enum(['split', 'whole']).optional(),
      },
    },
    (a) =>
      guarded(async () =>
        text(
          await client.reserve({
            hours: a.hours,
            ...(a.mini_count !== undefined && { miniCount: a.mini_count }),
            ...(a.mac_model !== undefined && { macModel: a.mac_model }),
            ...(a.vm_layout !== undefined && { vmLayout: a.vm_layout }),
          }),
        ),
      ),
  );

  server.registerTool(
    'list_reservations',
    { description: "The account's reservations, past ones included." },
    () => guarded(async () => text(await client.listReservations())),
  );

  server.registerTool(
    'list_sandboxes',
    { description: "The caller's sandboxes with their state and viewer link." },
    () => guarded(async () => text(await client.list())),
  );

  server.registerTool(
    'create_sandbox',
    {
      description:
        'Create a sandbox (a VM on a reserved Mac). Ephemeral by default, like the SDKs: it is destroyed ' +
        'after about 2 minutes without any call; pass ephemeral=false to keep it until delete_sandbox.',
      inputSchema: {
        cpu: z.number().int().min(2).optional(),
        memory_gib: z.number().int().min(4).optional(),
        snapshot: z.string().optional().describe('A snapshot version to restore'),
        reservation_id: z.string().optional(),
        ephemeral: z.boolean().optional(),
        egress: egressArg.optional(),
      },
    },
    (a) =>
      guarded(async () => {
        const created = await client.create({
          ...(a.cpu !== undefined && { cpu: a.cpu }),
          ...(a.memory_gib !== undefined && { memoryGib: a.memory_gib }),
          ...(a.snapshot !== undefined && { snapshot: a.snapshot }),
          ...(a.reservation_id !== undefined && { reservationId: a.reservation_id }),
          ...(a.ephemeral !== undefined && { ephemeral: a.ephemeral }),
          ...(a.egress !== undefined && { egress: a.egress }),
        });
        return text(await created.info());
      }),
  );

  server.registerTool(
    'delete_sandbox',
    { description: 'Destroy a sandbox.', inputSchema: { sandbox_id: sandboxId } },
    (a) =>
      guarded(async () => {
        await sb(a.sandbox_id).delete();
        return text(`deleted ${a.sandbox_id}`);
      }),
  );

  server.registerTool(
    'screenshot',
    {
      description: 'A screenshot of the whole screen, as an image (PNG, or JPEG with format=jpeg).',
      inputSchema: {
        sandbox_id: sandboxId,
        format: z.enum(['png', 'jpeg']).optional().describe('Default png'),
        scale: z.number().gt(0).max(1).optional().describe('Scale down, e.g. 0.5'),
      },
    },
    (a) =>
      guarded(async () => {
        const s = sb(a.sandbox_id).screenshot;
        const jpeg = a.format === 'jpeg';
        const bytes =
          jpeg || a.scale !== undefined
            ? await s.takeCompressed({ format: jpeg ? 'jpeg' : 'png', ...(a.scale && { scale: a.scale }) })
            : await s.takeFullScreen();
        return {
          content: [{ type: 'image', data: base64(bytes), mimeType: jpeg ? 'image/jpeg' : 'image/png' }],
        };
      }),
  );

  server.registerTool(
    'click',
    {
      description: 'Click at (x, y).',
      inputSchema: { sandbox_id: sandboxId, x: coord, y: coord, button },
    },
    (a) =>
      guarded(async () =>
        text(await sb(a.sandbox_id).mouse.click(a.x, a.y, a.button ? { button: a.button } : {})),
      ),
  );

  server.registerTool(
    'double_click',
    { description: 'Double-click at (x, y).', inputSchema: { sandbox_id: sandboxId, x: coord, y: coord } },
    (a) => guarded(async () => text(await sb(a.sandbox_id).mouse.doubleClick(a.x, a.y))),
  );

  server.registerTool(
    'drag',
    {
      description: 'Press at (start_x, start_y), move to (end_x, end_y), release.',
      inputSchema: {
        sandbox_id: sandboxId,
        start_x: coord,
        start_y: coord,
        end_x: coord,
        end_y: coord,
        button: z.enum(['left', 'right', 'middle']).optional(),
      },
    },
    (a) =>
      guarded(async () =>
        text(
          await sb(a.sandbox_id).mouse.drag(
            a.start_x,
            a.start_y,
            a.end_x,
            a.end_y,
            a.button ? { button: a.button } : {},
          ),
        ),
      ),
  );

  server.registerTool(
    'move',
    {
      description: 'Move the pointer to (x, y).',
      inputSchema: { sandbox_id: sandboxId, x: coord, y: coord },
    },
    (a) => guarded(async () => text(await sb(a.sandbox_id).mouse.move(a.x, a.y))),
  );

  server.registerTool(
    'scroll',
    {
      description: 'Scroll at (x, y).',
      inputSchema: {
        sandbox_id: sandboxId,
        x: coord,
        y: coord,
        direction: z.enum(['up', 'down', 'left', 'right']).optional().describe('Default down'),
        amount: z.number().int().min(1).optional().describe('Wheel steps, default 3'),
      },
    },
    (a) =>
      guarded(async () =>
        text(
          await sb(a.sandbox_id).mouse.scroll(a.x, a.y, {
            ...(a.direction && { direction: a.direction }),
            ...(a.amount && { amount: a.amount }),
          }),
        ),
      ),
  );

  server.registerTool(
    'type',
    {
      description: 'Type text into the focused window.',
      inputSchema: {
        sandbox_id: sandboxId,
        text: z.string(),
        delay: z.number().int().min(0).optional().describe('ms between keys'),
      },
    },
    (a) =>
      guarded(async () =>
        text(await sb(a.sandbox_id).keyboard.type(a.text, a.delay !== undefined ? { delay: a.delay } : {})),
      ),
  );

  server.registerTool(
    'key',
    {
      description:
        'Press one key (return, escape, tab, a, f5 …), optionally with modifiers (cmd, ctrl, alt, shift).',
      inputSchema: { sandbox_id: sandboxId, key: z.string(), modifiers: z.array(z.string()).optional() },
    },
    (a) =>
      guarded(async () =>
        text(await sb(a.sandbox_id).keyboard.press(a.key, a.modifiers ? { modifiers: a.modifiers } : {})),
      ),
  );

  server.registerTool(
    'hotkey',
    {
      description: 'Press a key combination, keys joined with + (e.g. ctrl+c, cmd+shift+4).',
      inputSchema: { sandbox_id: sandboxId, keys: z.string() },
    },
    (a) => guarded(async () => text(await sb(a.sandbox_id).keyboard.hotkey(a.keys))),
  );

  server.registerTool(
    'exec',
    {
      description: 'Run a shell command in the sandbox: stdout, stderr, return_code, timed_out.',
      inputSchema: {
        sandbox_id: sandboxId,
        command: z.string().min(1),
        timeout: z.number().int().min(1).max(3600).optional().describe('Seconds, default 120'),
      },
    },
    (a) =>
      guarded(async () =>
        text(await sb(a.sandbox_id).exec(a.command, a.timeout !== undefined ? { timeout: a.timeout } : {})),
      ),
  );

  server.registerTool(
    'read_file',
    {
      description: 'Read a file of the sandbox: UTF-8 text, or base64 with encoding=base64.',
      inputSchema: {
        sandbox_id: sandboxId,
        path: z.string().min(1).describe('Relative paths are in the home directory'),
        encoding: z.enum(['utf8', 'base64']).optional(),
      },
    },
    (a) =>
      guarded(async () => {
        const bytes = await sb(a.sandbox_id).downloadBytes(a.path);
        return text(a.encoding === 'base64' ? base64(bytes) : new TextDecoder().decode(bytes));
      }),
  );

  server.registerTool(
    'write_file',
    {
      description: 'Write a file in the sandbox (parent directories are created).',
      inputSchema: {
        sandbox_id: sandboxId,
        path: z.string().min(1),
        content: z.string(),
        encoding: z.enum(['utf8', 'base64']).optional().describe('How content is given; default utf8'),
      },
    },
    (a) =>
      guarded(async () => {
        const data = a.encoding === 'base64' ? new Uint8Array(Buffer.from(a.content, 'base64')) : a.content;
        await sb(a.sandbox_id).uploadBytes(data, a.path);
        return text(`wrote ${a.path}`);
      }),
  );

  server.registerTool(
    'display_info',
    { description: 'Screen width, height and scale.', inputSchema: { sandbox_id: sandboxId } },
    (a) => guarded(async () => text(await sb(a.sandbox_id).display.getInfo())),
  );

  server.registerTool(
    'window_tree',
    {
      description:
        'The windows on screen with their accessibility elements: role, name, position, size, focus.',
      inputSchema: { sandbox_id: sandboxId },
    },
    (a) => guarded(async () => text(await sb(a.sandbox_id).display.getWindows())),
  );

  server.registerTool(
    'setup_sandbox',
    {
      description:
        'Run setup steps in the sandbox, in order (or a task’s setup with task_id). Each step is an ' +
        'object with `type`: download {path, url | blob, sha256?, executable?}, launch {command, ' +
        'wait_for?: {name?, name_contains?, role?, app?, focused?} | false}, open {path, wait_for?}, ' +
        'command {command, expect?: {exit_code?, stdout_contains?, stdout_matches?}, attempts?}, sleep ' +
        '{seconds}; any takes timeout_s. Answers each step’s status; a failed step says why.',
      inputSchema: {
        sandbox_id: sandboxId,
        steps: z.array(z.record(z.string(), z.unknown())).optional().describe('The steps (or task_id)'),
        task_id: z.string().optional().describe('A task whose setup to run (account key)'),
        timeout_s: z.number().gt(0).max(3600).optional().describe('Deadline of the whole setup; default 600'),
      },
    },
    (a) =>
      guarded(async () => {
        const o = a.timeout_s !== undefined ? { timeoutS: a.timeout_s } : {};
        const s = sb(a.sandbox_id);
        if (a.task_id !== undefined && a.steps === undefined) return text(await s.setupTask(a.task_id, o));
        return text(await s.setup((a.steps ?? []) as Parameters<typeof s.setup>[0], o));
      }),
  );

  server.registerTool(
    'grade_sandbox',
    {
      description:
        'Grade the sandbox: a reward in [0, 1] with each check (or a task’s grader with task_id). A ' +
        'grader is {combine?: all | any | weighted, checks: [...]} (or a shell script: exit 0 → 1); ' +
        'checks have `type`: command {command, expect?, reward_from_stdout?}, window {match, absent?}, ' +
        'file {path, exists?, equals?, contains?, matches?, json_path?, json_equals?}; any takes ' +
        'score and weight.',
      inputSchema: {
        sandbox_id: sandboxId,
        grader: z
          .union([z.string(), z.record(z.string(), z.unknown())])
          .optional()
          .describe('The grader (or task_id)'),
        task_id: z.string().optional().describe('A task whose grader to run (account key)'),
        timeout_s: z.number().gt(0).max(3600).optional().describe('Deadline of the grading; default 600'),
      },
    },
    (a) =>
      guarded(async () => {
        const o = a.timeout_s !== undefined ? { timeoutS: a.timeout_s } : {};
        const s = sb(a.sandbox_id);
        if (a.task_id !== undefined && a.grader === undefined) return text(await s.gradeTask(a.task_id, o));
        return text(await s.grade((a.grader ?? '') as Parameters<typeof s.grade>[0], o));
      }),
  );
}
