// Cua's screen, mouse, keyboard and scroll commands on sandbay's Guest: the same calls the REST
// routes make (mouse.ts, keyboard.ts, screenshots.ts, display.ts). Answers are the fields Cua's
// handlers return (computer_server/handlers/linux.py and macos.py) and its SDK reads
// (computer/interface/generic.py): `image_data` (base64) and `format`, `size`, `position`.
import Type from 'typebox';
import type { Guest, MouseButton, ScrollDirection } from '../../../hosts/driver.ts';
import { Nullable } from '../../schemas/common.ts';
import { sandbayHotkey, sandbayKey } from './keys.ts';
import { CuaParamError, command, type CuaCommand } from './protocol.ts';

const Coord = (description: string) => Type.Integer({ minimum: 0, maximum: 65535, description });
/** A point Cua may leave out (`None`): the command then acts where the pointer is. */
const OptionalCoord = (description: string) => Type.Optional(Nullable(Coord(description)));
const Button = Type.Optional(
  Type.Enum(['left', 'right', 'middle'], { description: 'Mouse button (default left).' }),
);
/** Cua's drag duration: accepted and ignored (sandbay drags as its REST route does). */
const Duration = Type.Optional(Type.Number({ description: 'Seconds; ignored.' }));
const Notches = (description: string) => Type.Integer({ minimum: 0, maximum: 100, description });
const SignedNotches = (description: string) => Type.Integer({ minimum: -100, maximum: 100, description });
const KeyName = Type.String({ minLength: 1, maxLength: 64, description: "A key name (Cua's or sandbay's)." });
const NoParams = Type.Object({});

/** Where the command acts: the point given, or the pointer when Cua sent none. */
async function pointOr(
  guest: Guest,
  x?: number | null,
  y?: number | null,
): Promise<{ x: number; y: number }> {
  return x !== undefined && x !== null && y !== undefined && y !== null ? { x, y } : guest.position();
}

const clickParams = Type.Object({
  x: OptionalCoord('Screen x (default: where the pointer is).'),
  y: OptionalCoord('Screen y (default: where the pointer is).'),
});

function click(button: MouseButton, double: boolean): CuaCommand {
  return command(clickParams, async (guest, p) => {
    const at = await pointOr(guest, p.x, p.y);
    await guest.click(at.x, at.y, { button, double });
    return {};
  });
}

function mouseButton(down: boolean): CuaCommand {
  const params = Type.Object({ ...clickParams.properties, button: Button });
  return command(params, async (guest, p) => {
    if (p.x !== undefined && p.x !== null && p.y !== undefined && p.y !== null) await guest.move(p.x, p.y);
    await guest.mouseButton(p.button ?? 'left', down);
    return {};
  });
}

function heldKey(down: boolean): CuaCommand {
  return command(Type.Object({ key: KeyName }), async (guest, p) => {
    await guest.keys(sandbayKey(p.key), down);
    return {};
  });
}

async function scrollAt(guest: Guest, direction: ScrollDirection, notches: number): Promise<void> {
  if (notches === 0) return;
  const at = await guest.position();
  await guest.scroll(at.x, at.y, direction, notches);
}

function scrollOne(direction: ScrollDirection): CuaCommand {
  const params = Type.Object({ clicks: Type.Optional(Notches('Wheel notches (default 1).')) });
  return command(params, async (guest, p) => {
    await scrollAt(guest, direction, p.clicks ?? 1);
    return {};
  });
}

/** Cua's `screenshot` formats: png, or jpeg (also spelled jpg), in any case. */
function screenshotFormat(format: string): 'png' | 'jpeg' {
  const f = format.toLowerCase() === 'jpg' ? 'jpeg' : format.toLowerCase();
  if (f === 'png' || f === 'jpeg') return f;
  throw new CuaParamError(`Unsupported screenshot format '${format}'. Supported: ['jpeg', 'png']`);
}

export const INPUT_COMMANDS: Record<string, CuaCommand> = {
  screenshot: command(
    Type.Object({
      format: Type.Optional(Type.String({ description: 'png (default), jpeg or jpg.' })),
      quality: Type.Optional(Type.Integer({ description: 'JPEG quality, clamped to 1–95 (default 95).' })),
    }),
    async (guest, p) => {
      const format = screenshotFormat(p.format ?? 'png');
      // Cua clamps a JPEG's quality to 1–95 and ignores it for PNG.
      const quality = Math.max(1, Math.min(95, p.quality ?? 95));
      const image = await guest.screenshot(format === 'png' ? { format } : { format, quality });
      return { image_data: image.toString('base64'), format };
    },
  ),
  get_screen_size: command(NoParams, async (guest) => {
    const { width, height } = await guest.displayInfo();
    return { size: { width, height } };
  }),
  get_cursor_position: command(NoParams, async (guest) => ({ position: await guest.position() })),

  left_click: click('left', false),
  right_click: click('right', false),
  double_click: click('left', true),
  move_cursor: command(Type.Object({ x: Coord('Screen x.'), y: Coord('Screen y.') }), async (guest, p) => {
    await guest.move(p.x, p.y);
    return {};
  }),
  mouse_down: mouseButton(true),
  mouse_up: mouseButton(false),
  drag_to: command(
    Type.Object({
      x: Coord('Where the button is released.'),
      y: Coord('Where the button is released.'),
      button: Button,
      duration: Duration,
    }),
    async (guest, p) => {
      await guest.drag(await guest.position(), { x: p.x, y: p.y }, p.button ?? 'left');
      return {};
    },
  ),
  drag: command(
    Type.Object({
      path: Type.Array(Type.Tuple([Coord('x'), Coord('y')]), {
        minItems: 2,
        maxItems: 1000,
        description:
          'The points [x, y] the pointer goes through, the button held from the first to the last.',
      }),
      button: Button,
      duration: Duration,
    }),
    async (guest, p) => {
      const button = p.button ?? 'left';
      const [[x0, y0], ...rest] = p.path as [number, number][] as [[number, number], ...[number, number][]];
      if (rest.length === 1) {
        await guest.drag({ x: x0, y: y0 }, { x: rest[0]![0], y: rest[0]![1] }, button);
        return {};
      }
      await guest.move(x0, y0);
      await guest.mouseButton(button, true);
      try {
        for (const [x, y] of rest) await guest.move(x, y);
      } finally {
        await guest.mouseButton(button, false);
      }
      return {};
    },
  ),

  key_down: heldKey(true),
  key_up: heldKey(false),
  type_text: command(
    Type.Object({ text: Type.String({ maxLength: 100_000, description: 'Text to type, as keystrokes.' }) }),
    async (guest, p) => {
      await guest.type(p.text);
      return {};
    },
  ),
  press_key: command(Type.Object({ key: KeyName }), async (guest, p) => {
    await guest.press(sandbayKey(p.key));
    return {};
  }),
  hotkey: command(
    Type.Object({
      keys: Type.Array(KeyName, {
        minItems: 1,
        maxItems: 8,
        description: 'All but the last held, the last pressed.',
      }),
    }),
    async (guest, p) => {
      if (p.keys.length === 1) await guest.press(sandbayKey(p.keys[0]!));
      else {
        let chord: string;
        try {
          chord = sandbayHotkey(p.keys);
        } catch (err) {
          throw new CuaParamError((err as Error).message);
        }
        await guest.hotkey(chord);
      }
      return {};
    },
  ),

  scroll: command(
    Type.Object({
      x: SignedNotches('Horizontal notches: positive right, negative left.'),
      y: SignedNotches('Vertical notches: positive up, negative down (as pynput counts).'),
    }),
    async (guest, p) => {
      if (p.y !== 0) await scrollAt(guest, p.y > 0 ? 'up' : 'down', Math.abs(p.y));
      if (p.x !== 0) await scrollAt(guest, p.x > 0 ? 'right' : 'left', Math.abs(p.x));
      return {};
    },
  ),
  scroll_down: scrollOne('down'),
  scroll_up: scrollOne('up'),
  scroll_direction: command(
    Type.Object({
      direction: Type.Enum(['up', 'down', 'left', 'right'], { description: 'Which way.' }),
      clicks: Type.Optional(Notches('Wheel notches (default 1).')),
    }),
    async (guest, p) => {
      await scrollAt(guest, p.direction, p.clicks ?? 1);
      return {};
    },
  ),
};
