// Wire shapes of the vendors' computer-use tools, accepted unchanged by POST /act next to the native
// `{action: {type, ...}}` (docs/agents.md): Anthropic's `computer` tool input (computer_20250124 and
// computer_20251124) and OpenAI's `computer_call` action. Each is one flat object whose per-action
// requirements (which action needs `coordinate`, …) are checked by the adapter, so that an error
// names the vendor's field rather than a branch of a union.
import Type, { type Static } from 'typebox';

const Coord = Type.Integer({ minimum: 0, maximum: 65535, description: 'Screen pixels.' });
const Point = Type.Array(Coord, { minItems: 2, maxItems: 2, description: '[x, y] in screen pixels.' });
/** Seconds; the vendors' reference tools allow up to 100. */
const Duration = Type.Number({ minimum: 0, maximum: 100, description: 'wait / hold_key: seconds.' });

export const ANTHROPIC_ACTIONS = [
  'left_click',
  'right_click',
  'middle_click',
  'double_click',
  'triple_click',
  'left_click_drag',
  'left_mouse_down',
  'left_mouse_up',
  'mouse_move',
  'scroll',
  'type',
  'key',
  'hold_key',
  'wait',
  'screenshot',
  'cursor_position',
  'zoom',
] as const;
export type AnthropicActionName = (typeof ANTHROPIC_ACTIONS)[number];

export const AnthropicActionSchema = Type.Object(
  {
    action: Type.Enum([...ANTHROPIC_ACTIONS], { description: 'The action.' }),
    coordinate: Type.Optional({ ...Point, description: 'Clicks, moves, scroll, drag end: [x, y].' }),
    start_coordinate: Type.Optional({ ...Point, description: 'left_click_drag: where it starts, [x, y].' }),
    text: Type.Optional(
      Type.String({
        maxLength: 100_000,
        description:
          'type: the text; key / hold_key: xdotool key names (`ctrl+s`, `Return`); clicks and scroll: modifiers held.',
      }),
    ),
    scroll_direction: Type.Optional(
      Type.Enum(['up', 'down', 'left', 'right'], { description: 'scroll: which way.' }),
    ),
    scroll_amount: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100, description: 'scroll: wheel notches.' }),
    ),
    duration: Type.Optional(Duration),
    region: Type.Optional(
      Type.Array(Coord, { minItems: 4, maxItems: 4, description: 'zoom: [x0, y0, x1, y1].' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'AnthropicComputerAction',
    description: "The input of Anthropic's computer tool (a tool_use block's `input`), unchanged.",
  },
);
export type AnthropicAction = Static<typeof AnthropicActionSchema>;

export const OPENAI_ACTIONS = [
  'click',
  'double_click',
  'drag',
  'move',
  'scroll',
  'type',
  'keypress',
  'wait',
  'screenshot',
] as const;
export type OpenAIActionName = (typeof OPENAI_ACTIONS)[number];

export const OpenAIActionSchema = Type.Object(
  {
    type: Type.Enum([...OPENAI_ACTIONS], { description: 'The action.' }),
    x: Type.Optional({ ...Coord, description: 'click, double_click, move, scroll: x in screen pixels.' }),
    y: Type.Optional({ ...Coord, description: 'click, double_click, move, scroll: y in screen pixels.' }),
    button: Type.Optional(
      Type.Enum(['left', 'right', 'wheel', 'back', 'forward'], { description: 'click: the button.' }),
    ),
    path: Type.Optional(
      Type.Array(
        Type.Object({
          x: { ...Coord, description: 'x in screen pixels.' },
          y: { ...Coord, description: 'y in screen pixels.' },
        }),
        { minItems: 2, maxItems: 1000, description: 'drag: the points the pointer goes through.' },
      ),
    ),
    scroll_x: Type.Optional(
      Type.Integer({ minimum: -10_000, maximum: 10_000, description: 'scroll: horizontal pixels.' }),
    ),
    scroll_y: Type.Optional(
      Type.Integer({ minimum: -10_000, maximum: 10_000, description: 'scroll: vertical pixels.' }),
    ),
    text: Type.Optional(Type.String({ maxLength: 100_000, description: 'type: the text.' })),
    keys: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 8,
        description: 'keypress: the keys of one chord, e.g. ["CTRL", "S"].',
      }),
    ),
    ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, description: 'wait: milliseconds.' })),
  },
  {
    // OpenAI may add fields to an action (e.g. `keys` on clicks): ignored, as its own samples do.
    additionalProperties: true,
    title: 'OpenAIComputerAction',
    description: "The `action` of OpenAI's computer_call output item, unchanged.",
  },
);
export type OpenAIAction = Static<typeof OpenAIActionSchema>;

/** Anthropic's answer: the `content` of a tool_result block. */
export const AnthropicResultSchema = Type.Object(
  {
    content: Type.Array(
      Type.Union([
        Type.Object({
          type: Type.Literal('image', { description: 'A screenshot block.' }),
          source: Type.Object(
            {
              type: Type.Literal('base64', { description: 'The encoding of data.' }),
              media_type: Type.Literal('image/png', { description: 'The image format.' }),
              data: Type.String({ description: 'The PNG, base64.' }),
            },
            { description: 'The image.' },
          ),
        }),
        Type.Object({
          type: Type.Literal('text', { description: 'A text block.' }),
          text: Type.String({ description: 'e.g. the typed text or an error.' }),
        }),
      ]),
      { description: 'The tool_result content blocks.' },
    ),
    coordinate: Type.Optional({ ...Point, description: 'cursor_position: where the pointer is.' }),
  },
  { title: 'AnthropicComputerResult' },
);
export type AnthropicResult = Static<typeof AnthropicResultSchema>;

/** OpenAI's answer: the `output` of a computer_call_output item. */
export const OpenAIResultSchema = Type.Object(
  {
    type: Type.Literal('computer_screenshot', { description: 'The output kind.' }),
    image_url: Type.String({ description: 'The screenshot as a `data:image/png;base64,` URL.' }),
  },
  { title: 'OpenAIComputerResult' },
);
export type OpenAIResult = Static<typeof OpenAIResultSchema>;
