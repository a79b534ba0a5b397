// Wire shapes of the control endpoints: mouse, keyboard, screenshots, act, display, files.
import Type, { type Static, type TProperties } from 'typebox';
import { defaultsOptional } from './common.ts';

const Coord = (description: string) => Type.Integer({ minimum: 0, maximum: 65535, description });
const X = Coord('Screen x, in points from the left edge.');
const Y = Coord('Screen y, in points from the top edge.');
const Button = Type.Enum(['left', 'right', 'middle'], { default: 'left', description: 'Mouse button.' });
const Direction = Type.Enum(['up', 'down', 'left', 'right'], {
  default: 'down',
  description: 'Which way the content scrolls.',
});
const Amount = Type.Integer({ minimum: 1, maximum: 100, default: 3, description: 'Wheel notches.' });
const Delay = Type.Integer({ minimum: 0, maximum: 10_000, description: 'Milliseconds between keystrokes.' });
const KeyName = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'A key name, e.g. `return`, `a`, `f5`, `cmd` (docs/api.md, Keys).',
});
const Modifiers = Type.Array(KeyName, { maxItems: 8, description: 'Keys held down during the press.' });
const Text = Type.String({ maxLength: 100_000, description: 'Text to type, as keystrokes.' });
const Keys = Type.String({
  minLength: 1,
  maxLength: 256,
  description: 'Keys joined with `+`, e.g. `cmd+shift+4`.',
});

/** A request body or query: unknown fields refused, fields with a default optional on the wire. */
function request<P extends TProperties>(properties: P) {
  return defaultsOptional(Type.Object(properties, { additionalProperties: false }));
}

export const ClickSchema = request({
  x: X,
  y: Y,
  button: Type.Enum(['left', 'right'], { default: 'left', description: 'Mouse button.' }),
  double: Type.Boolean({ default: false, description: 'true: a double click.' }),
});
export const MoveSchema = request({ x: X, y: Y });
export const DragSchema = request({
  startX: Coord('Screen x where the drag starts.'),
  startY: Coord('Screen y where the drag starts.'),
  endX: Coord('Screen x where the button is released.'),
  endY: Coord('Screen y where the button is released.'),
  button: Button,
});
export const ScrollSchema = request({ x: X, y: Y, direction: Direction, amount: Amount });
export const TypeSchema = request({ text: Text, delay: Type.Optional(Delay) });
export const PressSchema = request({ key: KeyName, modifiers: Type.Optional(Modifiers) });
export const HotkeySchema = request({ keys: Keys });
export const SetClipboardActionSchema = request({
  text: Type.String({
    maxLength: 1024 * 1024,
    description: "Text to put on the sandbox's clipboard (PUT …/clipboard also takes images).",
  }),
  paste: Type.Boolean({
    default: false,
    description:
      'true: then paste it into the focused window (`cmd+v`, which is Control+V on Linux desktops).',
  }),
});

export const PositionSchema = Type.Object({
  x: Type.Integer({ description: 'Pointer x, in points.' }),
  y: Type.Integer({ description: 'Pointer y, in points.' }),
});

/** Act: one action, selected by `type`, with the fields of the matching endpoint's body. */
const ActionType = <T extends string>(type: T) => Type.Literal(type, { description: 'The action.' });
export const ActionSchema = Type.Union(
  [
    request({ type: ActionType('click'), ...ClickSchema.properties }),
    request({ type: ActionType('move'), ...MoveSchema.properties }),
    request({ type: ActionType('drag'), ...DragSchema.properties }),
    request({ type: ActionType('scroll'), ...ScrollSchema.properties }),
    request({ type: ActionType('type'), ...TypeSchema.properties }),
    request({ type: ActionType('key'), ...PressSchema.properties }),
    request({ type: ActionType('hotkey'), ...HotkeySchema.properties }),
    request({ type: ActionType('set_clipboard'), ...SetClipboardActionSchema.properties }),
  ],
  { description: "One input action: `type` and the fields of that action's own endpoint." },
);
export type Action = Static<typeof ActionSchema>;

export const ActSchema = request({
  action: ActionSchema,
  screenshot_after: Type.Boolean({
    default: true,
    description: 'true: answer with a PNG of the screen after the action; false: with JSON.',
  }),
  screenshot_delay_ms: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 100,
    description: 'Milliseconds between the action and the screenshot (the screen settles).',
  }),
});

export const ActResultSchema = Type.Object({
  ok: Type.Boolean({ description: 'Always true: failures answer with an error status instead.' }),
  action: Type.String({ description: 'The action performed.' }),
});

export const ScreenshotQuery = request({
  show_cursor: Type.Boolean({ default: false, description: 'true: the pointer is drawn in.' }),
});
export const RegionQuery = request({
  x: Coord('Left edge of the region, in points.'),
  y: Coord('Top edge of the region, in points.'),
  width: Type.Integer({ minimum: 1, maximum: 65535, description: 'Width of the region, in points.' }),
  height: Type.Integer({ minimum: 1, maximum: 65535, description: 'Height of the region, in points.' }),
});
export const CompressedQuery = request({
  format: Type.Enum(['jpeg', 'png'], { default: 'jpeg', description: 'Image format.' }),
  quality: Type.Integer({ minimum: 1, maximum: 100, default: 80, description: 'JPEG quality.' }),
  scale: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'Scale factor in (0, 1].' }),
  ),
});

export const DisplayInfoSchema = Type.Object({
  width: Type.Integer({ description: 'Screen width, in points.' }),
  height: Type.Integer({ description: 'Screen height, in points.' }),
  scale: Type.Number({ description: 'Pixels per point (2 on a Retina display, 1 on Linux).' }),
  platform: Type.Literal('macos', {
    description:
      "The sandbox's type, as use.computer's client reads it: `macos` (also on the linux driver, which stands in for a Mac).",
  }),
});

/**
 * A node of the window / accessibility tree (hosts/driver.ts WindowNode). `children` holds nodes
 * of the same shape; the schema stays non-recursive so every serializer and OpenAPI tool reads it.
 */
export const WindowNodeSchema = Type.Object(
  {
    role: Type.String({ description: 'Accessibility role, e.g. `window`, `button`.' }),
    name: Type.String({ description: 'Title or accessible name.' }),
    x: Type.Integer({ description: 'Left edge, in points.' }),
    y: Type.Integer({ description: 'Top edge, in points.' }),
    width: Type.Integer({ description: 'Width, in points.' }),
    height: Type.Integer({ description: 'Height, in points.' }),
    id: Type.Optional(Type.String({ description: 'Window id or accessibility path.' })),
    app: Type.Optional(Type.String({ description: 'The application it belongs to.' })),
    pid: Type.Optional(Type.Integer({ description: 'Process id of that application.' })),
    focused: Type.Optional(Type.Boolean({ description: 'true for the focused window or element.' })),
    children: Type.Optional(Type.Array(Type.Unknown(), { description: 'Child nodes, same shape.' })),
  },
  { additionalProperties: true },
);

/** The window tree: a list, as the use.computer client types `display.get_windows()`. */
export const WindowsSchema = Type.Array(WindowNodeSchema, {
  description: 'The windows at the top, their accessibility children below them.',
});

export const WindowsQuery = request({
  best_effort: Type.Optional(
    Type.Enum(['1', 'true', '0', 'false'], {
      description:
        '1 or true: answer `{available, tree, error}`, with `available: false` instead of an error when the VM cannot give the tree.',
    }),
  ),
});

export const FilePathQuery = request({
  path: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: 'Path inside the sandbox (relative: to the home).',
  }),
});
