// Cua's computer-server protocol per sandbox: a Cua SDK whose `api_base_url` is
// `<sandbay>/v1/sandboxes/{id}/cua` (with `api_headers` carrying `Authorization: Bearer <key>`)
// sends `POST …/cua/cmd` and opens `…/cua/ws` exactly as it would at a computer-server's `/cmd` and
// `/ws`. `/cmd` answers as Cua's does: status 200 and one server-sent-events line,
// `data: {"success": …}` (also for a command that failed); a command Cua's server would not know
// is its 400 `{detail: "Unknown command: …"}`. The WebSocket itself is served by api/ws/upgrade.ts.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { webSocketEndpoint } from '../../routes/connectivity.ts';
import { SandboxParams, errorResponses } from '../../schemas/common.ts';
import type { RouteOptions } from '../../services/context.ts';
import { guestFor, sandboxOf } from '../../services/request.ts';
import { ALIASES, COMMANDS, CuaUnknownCommand, lookup, perform, refusedParams } from './commands.ts';
import { MAX_MESSAGE_BYTES, answerBytes } from './protocol.ts';

const tags = ['cua'];

const CuaMessageSchema = Type.Object(
  {
    command: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'A Cua command (`screenshot`, `left_click`, …) or one of its aliases.',
    }),
    params: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "The command's parameters." }),
    ),
  },
  { additionalProperties: true, description: "One message of Cua's protocol." },
);

/** The /cmd answer: `text/plain`, one `data: <json>` line and a blank line, as Cua's server streams it. */
const EventLine = Type.Unsafe<Buffer>({
  description: '`data: {"success": true, …}` (or `false` with `error` and `code`): Cua\'s answer envelope.',
  content: { 'text/plain': { schema: { type: 'string' } } },
});

/** A 400: sandbay's error body, and for an unknown command Cua's `detail` beside it. */
const CuaRefusalSchema = Type.Object({
  detail: Type.Optional(
    Type.String({ description: "Cua's sentence: `Unknown command: X. Did you mean: …?`" }),
  ),
  error: Type.String({ description: 'A stable error code: `cua_unknown_command`, `invalid_request`, …' }),
  message: Type.String({ description: 'A sentence for people.' }),
});

const CommandsSchema = Type.Object({
  commands: Type.Record(
    Type.String(),
    Type.Object({
      params: Type.Array(
        Type.Object({
          name: Type.String({ description: 'The parameter.' }),
          required: Type.Boolean({ description: 'true when the command needs it.' }),
          default: Type.Null({ description: 'Always null (defaults are in docs/api.md).' }),
        }),
        { description: 'Its parameters.' },
      ),
      aliases: Type.Optional(Type.Array(Type.String(), { description: 'Other names of it.' })),
    }),
    { description: 'Every command served, by name.' },
  ),
  aliases: Type.Record(Type.String(), Type.String(), { description: 'Alias → command.' }),
});

export const cuaRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.post(
    '/v1/sandboxes/:sandboxID/cua/cmd',
    {
      bodyLimit: MAX_MESSAGE_BYTES,
      schema: {
        operationId: 'cuaCommand',
        tags,
        summary: "One command of Cua's computer-server protocol (its POST /cmd)",
        params: SandboxParams,
        body: CuaMessageSchema,
        response: { 200: EventLine, ...errorResponses(401, 404, 409, 413, 502, 504), 400: CuaRefusalSchema },
      },
    },
    async (request, reply) => {
      const { command, params } = request.body;
      const found = lookup(command);
      if ('refusal' in found) throw new CuaUnknownCommand(found.refusal);
      // Refused params are Cua's answer (status 200); the sandbox not found or not running is the
      // path's own error (404, 409), as on every sandbox route.
      const answer =
        refusedParams(found.command, params) ??
        (await perform(found.command, params, await guestFor(ctx, request), request.log));
      return reply
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(answerBytes(answer, 'data: ', '\n\n'));
    },
  );

  app.get(
    '/v1/sandboxes/:sandboxID/cua/commands',
    {
      schema: {
        operationId: 'cuaCommands',
        tags,
        summary: 'The Cua commands served, with their parameters and aliases (its GET /commands)',
        params: SandboxParams,
        response: { 200: CommandsSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      await sandboxOf(ctx, request);
      return commandList();
    },
  );

  webSocketEndpoint(app, '/v1/sandboxes/:sandboxID/cua/ws', {
    operationId: 'connectCua',
    tags,
    summary:
      "Cua's computer-server WebSocket (101 upgrade): `{command, params}` messages; Bearer account or reservation key",
    upgraded: 'JSON messages follow.',
    errors: [401, 404, 409, 426, 429],
  });
};

/** Cua's GET /commands answer for the commands served here. */
function commandList() {
  const aliasesOf = new Map<string, string[]>();
  for (const [alias, name] of Object.entries(ALIASES))
    aliasesOf.set(name, [...(aliasesOf.get(name) ?? []), alias]);
  const commands: Record<
    string,
    { params: { name: string; required: boolean; default: null }[]; aliases?: string[] }
  > = {};
  for (const [name, command] of Object.entries(COMMANDS)) {
    const required = new Set(command.params.required ?? []);
    commands[name] = {
      params: Object.keys(command.params.properties).map((p) => ({
        name: p,
        required: required.has(p),
        default: null,
      })),
      ...(aliasesOf.has(name) && { aliases: aliasesOf.get(name) }),
    };
  }
  return { commands, aliases: { ...ALIASES } };
}
