// Wire shapes of the control endpoints: mouse, keyboard, screenshots, act, display, files.
import Type, { type Static, type TProperties } from 'typebox';
import { defaultsOptional } from './common.ts';

const Coord = Type.Integer({ minimum: 0, maximum: 65535 });
const Button = Type.Enum(['left', 'right', 'middle'], { default: 'left' });
const Direction = Type.Enum(['up', 'down', 'left', 'right'], { default: 'down' });
const Amount = Type.Integer({ minimum: 1, maximum: 100, default: 3 });
const Delay = Type.Integer({ minimum: 0, maximum: 10_000, description: 'Milliseconds between keystrokes.' });
const KeyName = Type.String({ minLength: 1, maxLength: 64 });
const Modifiers = Type.Array(KeyName, { maxItems: 8 });
const Text = Type.String({ maxLength: 100_000 });
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
  x: Coord,
  y: Coord,
  button: Type.Enum(['left', 'right'], { default: 'left' }),
  double: Type.Boolean({ default: false }),
});
export const MoveSchema = request({ x: Coord, y: Coord });
export const DragSchema = request({ startX: Coord, startY: Coord, endX: Coord, endY: Coord, button: Button });
export const ScrollSchema = request({ x: Coord, y: Coord, direction: Direction, amount: Amount });
export const TypeSchema = request({ text: Text, delay: Type.Optional(Delay) });
export const PressSchema = request({ key: KeyName, modifiers: Type.Optional(Modifiers) });
export const HotkeySchema = request({ keys: Keys });

export const PositionSchema = Type.Object({ x: Type.Integer(), y: Type.Integer() });

/** Act: one action, selected by `type`, with the fields of the matching endpoint's body. */
export const ActionSchema = Type.Union([
  request({ type: Type.Literal('click'), ...ClickSchema.properties }),
  request({ type: Type.Literal('move'), ...MoveSchema.properties }),
  request({ type: Type.Literal('drag'), ...DragSchema.properties }),
  request({ type: Type.Literal('scroll'), ...ScrollSchema.properties }),
  request({ type: Type.Literal('type'), ...TypeSchema.properties }),
  request({ type: Type.Literal('key'), ...PressSchema.properties }),
  request({ type: Type.Literal('hotkey'), ...HotkeySchema.properties }),
]);
export type Action = Static<typeof ActionSchema>;

export const ActSchema = request({
  action: ActionSchema,
  screenshot_after: Type.Boolean({ default: true }),
  screenshot_delay_ms: Type.Integer({ minimum: 0, maximum: 10_000, default: 100 }),
});

export const ActResultSchema = Type.Object({ ok: Type.Boolean(), action: Type.String() });

export const ScreenshotQuery = request({ show_cursor: Type.Boolean({ default: false }) });
export const RegionQuery = request({
  x: Coord,
  y: Coord,
  width: Type.Integer({ minimum: 1, maximum: 65535 }),
  height: Type.Integer({ minimum: 1, maximum: 65535 }),
});
export const CompressedQuery = request({
  format: Type.Enum(['jpeg', 'png'], { default: 'jpeg' }),
  quality: Type.Integer({ minimum: 1, maximum: 100, default: 80 }),
  scale: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'Scale factor in (0, 1].' }),
  ),
});

export const DisplayInfoSchema = Type.Object({
  width: Type.Integer(),
  height: Type.Integer(),
  scale: Type.Number(),
});

/**
 * A node of the window / accessibility tree (hosts/driver.ts WindowNode). `children` holds nodes
 * of the same shape; the schema stays non-recursive so every serializer and OpenAPI tool reads it.
 */
export const WindowNodeSchema = Type.Object(
  {
    role: Type.String(),
    name: Type.String(),
    x: Type.Integer(),
    y: Type.Integer(),
    width: Type.Integer(),
    height: Type.Integer(),
    id: Type.Optional(Type.String()),
    app: Type.Optional(Type.String()),
    pid: Type.Optional(Type.Integer()),
    focused: Type.Optional(Type.Boolean()),
    children: Type.Optional(Type.Array(Type.Unknown(), { description: 'Child nodes, same shape.' })),
  },
  { additionalProperties: true },
);

export const WindowsSchema = Type.Object({ windows: Type.Array(WindowNodeSchema) });

export const FilePathQuery = request({
  path: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: 'Path inside the sandbox (relative: to the home).',
  }),
});
