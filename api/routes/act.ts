// Act: one input action, then (by default) a PNG of the screen after a short delay, in one call.
// The body is one of three vocabularies, told apart by its shape alone (docs/agents.md):
//   {action: {type: "click", …}}    native: `action` is an object
//   {action: "left_click", …}       Anthropic's computer tool input: `action` is a string
//   {type: "click", …}              OpenAI's computer_call action: no `action`, a string `type`
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifySchemaCompiler } from 'fastify';
import Type, { type Static, type TSchema } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guest } from '../../hosts/driver.ts';
import { ActResultSchema, ActSchema, type Action } from '../schemas/control.ts';
import {
  AnthropicActionSchema,
  AnthropicResultSchema,
  OpenAIActionSchema,
  OpenAIResultSchema,
  type AnthropicAction,
  type AnthropicResult,
  type OpenAIAction,
  type OpenAIResult,
} from '../schemas/computer-use.ts';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import { actAnthropic, actOpenAI } from '../services/computer-use.ts';
import { clipboardContent, clipboardOf } from './clipboard.ts';
import type { RouteOptions } from '../services/context.ts';
import { guestFor } from '../services/request.ts';
import { validatorCompiler } from '../validation.ts';

/** Runs one action with the same semantics as its own endpoint. */
export async function perform(guest: Guest, action: Action): Promise<void> {
  switch (action.type) {
    case 'click':
      return guest.click(action.x, action.y, { button: action.button, double: action.double });
    case 'move':
      return guest.move(action.x, action.y);
    case 'drag':
      return guest.drag(
        { x: action.startX, y: action.startY },
        { x: action.endX, y: action.endY },
        action.button,
      );
    case 'scroll':
      return guest.scroll(action.x, action.y, action.direction, action.amount);
    case 'type':
      return guest.type(action.text, action.delay);
    case 'key':
      return guest.press(action.key, action.modifiers);
    case 'hotkey':
      return guest.hotkey(action.keys);
    case 'set_clipboard':
      await clipboardOf(guest).setClipboard(clipboardContent({ type: 'text', text: action.text }));
      if (action.paste) await guest.hotkey('cmd+v');
      return;
  }
}

type Vocabulary = 'native' | 'anthropic' | 'openai';

/** Which vocabulary a body speaks, by its shape; undefined when it speaks none. */
export function vocabularyOf(body: unknown): Vocabulary | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.action === 'object' && b.action !== null) return 'native';
  if (typeof b.action === 'string') return 'anthropic';
  if (b.action === undefined && typeof b.type === 'string') return 'openai';
  return undefined;
}

const ActBodySchema = Type.Union([ActSchema, AnthropicActionSchema, OpenAIActionSchema], {
  description:
    'Native `{action: {type, …}}`, Anthropic computer tool input `{action: "left_click", coordinate}` or OpenAI computer_call action `{type: "click", x, y}`, told apart by shape.',
});
type ActBody = Static<typeof ActSchema> | AnthropicAction | OpenAIAction;

/** Validates the body against its own vocabulary only, so that errors name that vocabulary's fields. */
const actBodyValidator: FastifySchemaCompiler<TSchema> = (route) => {
  if (route.httpPart !== 'body') return validatorCompiler(route);
  const check: Record<Vocabulary, ReturnType<typeof validatorCompiler>> = {
    native: validatorCompiler({ ...route, schema: ActSchema }),
    anthropic: validatorCompiler({ ...route, schema: AnthropicActionSchema }),
    openai: validatorCompiler({ ...route, schema: OpenAIActionSchema }),
  };
  return (input: unknown) => {
    const vocabulary = vocabularyOf(input);
    if (vocabulary) return check[vocabulary](input);
    const error = new Error(
      'body must be {action: {type, …}} (native), {action: "left_click", …} (Anthropic) or {type: "click", …} (OpenAI)',
    );
    return { error };
  };
};

export const actRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.post(
    '/v1/sandboxes/:sandboxID/act',
    {
      schema: {
        operationId: 'act',
        tags: ['act'],
        summary:
          'Perform an action (native, Anthropic or OpenAI computer-use vocabulary), then return a screenshot',
        params: SandboxParams,
        body: ActBodySchema,
        response: {
          200: Type.Unsafe<
            | Buffer
            | Static<typeof ActResultSchema>
            | Static<typeof AnthropicResultSchema>
            | Static<typeof OpenAIResultSchema>
          >({
            description:
              'Native: PNG after the action, or JSON when screenshot_after is false. Anthropic: the tool_result content. OpenAI: the computer_call_output output.',
            content: {
              'image/png': { schema: { type: 'string', format: 'binary' } },
              'application/json': {
                schema: Type.Union([ActResultSchema, AnthropicResultSchema, OpenAIResultSchema]),
              },
            },
          } as unknown as TSchema),
          ...errorResponses(400, 401, 404, 409, 502, 504),
        },
      },
      validatorCompiler: actBodyValidator,
    },
    async (request, reply) => {
      const guest = await guestFor(ctx, request);
      const body = request.body as ActBody;
      const json = (value: Static<typeof ActResultSchema> | AnthropicResult | OpenAIResult) =>
        reply.type('application/json; charset=utf-8').send(value);
      if (vocabularyOf(body) === 'anthropic') return json(await actAnthropic(guest, body as AnthropicAction));
      if (vocabularyOf(body) === 'openai') return json(await actOpenAI(guest, body as OpenAIAction));
      const { action, screenshot_after, screenshot_delay_ms } = body as Static<typeof ActSchema>;
      await perform(guest, action);
      if (!screenshot_after) return json({ ok: true, action: action.type });
      if (screenshot_delay_ms > 0) await delay(screenshot_delay_ms);
      return reply.type('image/png').send(await guest.screenshot({ format: 'png' }));
    },
  );
};
