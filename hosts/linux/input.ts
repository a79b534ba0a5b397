// Mouse and keyboard through the XTEST extension on the VM's long-running X11 connection: each action
// is a handful of FakeInput requests and one round trip (so the server has applied the input when
// the call returns), instead of spawning xdotool per action.
import { setTimeout as sleep } from 'node:timers/promises';
import { DriverError, MULTI_CLICK_GAP_MS, type MouseButton, type ScrollDirection } from '../driver.ts';
import { checkPoint, checkScrollAmount, checkTypeDelay } from '../input-checks.ts';
import type { Chord } from './keys.ts';
import { Keymap } from './input-keymap.ts';
import type { X11Connection } from './x11-connection.ts';

/** The XTEST extension's requests and event codes, as x11 (the npm package) hands them out. */
export interface Xtest {
  KeyPress: number;
  KeyRelease: number;
  ButtonPress: number;
  ButtonRelease: number;
  MotionNotify: number;
  FakeInput(type: number, detail: number, time: number, window: number, x: number, y: number): void;
}

const BUTTONS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3, back: 8, forward: 9 };
const WHEEL: Record<ScrollDirection, number> = { up: 4, down: 5, left: 6, right: 7 };
/** The core protocol's state bits of buttons 1–5 (QueryPointer's mask); buttons above 5 have none. */
const BUTTON_MASK: Record<number, number> = { 1: 0x100, 2: 0x200, 3: 0x400, 4: 0x800, 5: 0x1000 };
/** How long a click waits for a window manager holding it to pass it on (`#delivered`). */
const DELIVERY_DEADLINE_MS = 1000;
const DELIVERY_POLL_MS = 2;
/**
 * For this long the pointer is asked again at once (each ask is one X round trip, ~0.1 ms): xfwm4
 * passes a held click on within about a millisecond, and a 2 ms timer there made every click on an
 * unfocused window cost ~3 ms (most of an act's time, measured in the act route).
 */
const DELIVERY_EAGER_MS = 5;
/** Motion events between the ends of a drag: toolkits start a drag only after seeing the pointer move. */
const DRAG_STEPS = 10;
const DRAG_STEP_MS = 2;

interface InputState {
  xtest: Xtest;
  keymap: Keymap;
}

const states = new WeakMap<X11Connection, Promise<InputState>>();

function stateOf(conn: X11Connection): Promise<InputState> {
  let state = states.get(conn);
  if (!state) {
    state = (async () => {
      const xtest = await conn.extension<Xtest>('xtest');
      if (!xtest)
        throw new DriverError('missing_tool', `X display ${conn.display} lacks the XTEST extension`);
      return { xtest, keymap: await Keymap.load(conn) };
    })();
    states.set(conn, state);
    state.catch(() => states.delete(conn));
  }
  return state;
}

function buttonOf(button: MouseButton | undefined): number {
  const b = BUTTONS[button ?? 'left'];
  if (b === undefined) throw new DriverError('invalid_argument', `unknown mouse button "${String(button)}"`);
  return b;
}

export class Input {
  readonly #conn: X11Connection;

  constructor(conn: X11Connection) {
    this.#conn = conn;
  }

  async move(x: number, y: number): Promise<void> {
    checkPoint(x, y, this.#conn);
    const { xtest } = await stateOf(this.#conn);
    this.#motion(xtest, x, y);
    await this.#conn.sync();
  }

  async click(x: number, y: number, button?: MouseButton, double = false): Promise<void> {
    checkPoint(x, y, this.#conn);
    const b = buttonOf(button);
    const { xtest } = await stateOf(this.#conn);
    this.#motion(xtest, x, y);
    for (let i = 0; i < (double ? 2 : 1); i++) {
      if (i > 0) {
        await this.#delivered(b);
        await sleep(MULTI_CLICK_GAP_MS);
      }
      xtest.FakeInput(xtest.ButtonPress, b, 0, 0, 0, 0);
      xtest.FakeInput(xtest.ButtonRelease, b, 0, 0, 0, 0);
    }
    await this.#delivered(b);
  }

  async drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    button?: MouseButton,
  ): Promise<void> {
    checkPoint(from.x, from.y, this.#conn);
    checkPoint(to.x, to.y, this.#conn);
    const b = buttonOf(button);
    const { xtest } = await stateOf(this.#conn);
    this.#motion(xtest, from.x, from.y);
    xtest.FakeInput(xtest.ButtonPress, b, 0, 0, 0, 0);
    try {
      for (let i = 1; i <= DRAG_STEPS; i++) {
        await this.#conn.sync();
        await sleep(DRAG_STEP_MS);
        const x = Math.round(from.x + ((to.x - from.x) * i) / DRAG_STEPS);
        const y = Math.round(from.y + ((to.y - from.y) * i) / DRAG_STEPS);
        this.#motion(xtest, x, y);
      }
    } finally {
      xtest.FakeInput(xtest.ButtonRelease, b, 0, 0, 0, 0);
    }
    await this.#delivered(b);
  }

  async scroll(x: number, y: number, direction: ScrollDirection, amount: number): Promise<void> {
    checkPoint(x, y, this.#conn);
    const wheel = WHEEL[direction];
    if (wheel === undefined)
      throw new DriverError('invalid_argument', `unknown scroll direction "${String(direction)}"`);
    checkScrollAmount(amount);
    const { xtest } = await stateOf(this.#conn);
    this.#motion(xtest, x, y);
    // Notch by notch, each delivered before the next: over a window without focus the window manager
    // takes the first as a click to focus, and notches sent meanwhile were lost (1 of 3 arrived).
    for (let i = 0; i < amount; i++) {
      xtest.FakeInput(xtest.ButtonPress, wheel, 0, 0, 0, 0);
      xtest.FakeInput(xtest.ButtonRelease, wheel, 0, 0, 0, 0);
      await this.#delivered(wheel);
    }
  }

  async position(): Promise<{ x: number; y: number }> {
    const p = await this.#pointer();
    return { x: p.rootX, y: p.rootY };
  }

  /** The pointer as the server has it: where it is, and the buttons and modifiers held. */
  #pointer(): Promise<{ rootX: number; rootY: number; keyMask: number }> {
    const conn = this.#conn;
    return conn.request('QueryPointer', (reply) => conn.client.QueryPointer(conn.root, reply));
  }

  /** Presses or releases a button where the pointer is. */
  async button(button: MouseButton, down: boolean): Promise<void> {
    const b = buttonOf(button);
    const { xtest } = await stateOf(this.#conn);
    xtest.FakeInput(down ? xtest.ButtonPress : xtest.ButtonRelease, b, 0, 0, 0, 0);
    await (down ? this.#conn.sync() : this.#delivered(b));
  }

  /** Presses (in order) or releases (in reverse) the keys of `keysyms`, without the other half. */
  async keys(keysyms: number[], down: boolean): Promise<void> {
    const { xtest, keymap } = await stateOf(this.#conn);
    const codes = await Promise.all(keysyms.map(async (ks) => (await keymap.keycode(ks)).keycode));
    if (down) for (const k of codes) xtest.FakeInput(xtest.KeyPress, k, 0, 0, 0, 0);
    else for (const k of codes.reverse()) xtest.FakeInput(xtest.KeyRelease, k, 0, 0, 0, 0);
    await this.#conn.sync();
  }

  /** Types keysyms one keystroke each, `delayMs` apart (0: all sent at once, one round trip). */
  async type(keysyms: number[], delayMs = 0): Promise<void> {
    checkTypeDelay(delayMs, keysyms.length);
    const { xtest, keymap } = await stateOf(this.#conn);
    for (let i = 0; i < keysyms.length; i++) {
      await this.#chord(xtest, keymap, { held: [], key: keysyms[i] as number });
      if (delayMs > 0 && i < keysyms.length - 1) {
        await this.#conn.sync();
        await sleep(delayMs);
      }
    }
    await this.#conn.sync();
  }

  async press(chord: Chord): Promise<void> {
    const { xtest, keymap } = await stateOf(this.#conn);
    await this.#chord(xtest, keymap, chord);
    await this.#conn.sync();
  }

  /**
   * Returns once the X server has delivered the release of `button` just sent. A window manager's
   * passive grab (xfwm4's click to focus, on a window without focus) freezes the pointer at the press
   * until the manager replays it (XAllowEvents), the release waiting in the frozen queue meanwhile,
   * while keys still go straight to the focused window: a key sent right after the click would reach
   * the old focus before the click did (seen on a loaded machine). While the release waits, the
   * pointer's state (QueryPointer, no side effect) still holds the button down. A manager that holds
   * a click longer than the deadline gets it back in its own time.
   */
  async #delivered(button: number): Promise<void> {
    const bit = BUTTON_MASK[button];
    if (bit === undefined) return this.#conn.sync();
    const start = performance.now();
    for (;;) {
      const p = await this.#pointer();
      const waited = performance.now() - start;
      if ((p.keyMask & bit) === 0 || waited > DELIVERY_DEADLINE_MS) return;
      if (waited > DELIVERY_EAGER_MS) await sleep(DELIVERY_POLL_MS);
    }
  }

  #motion(xtest: Xtest, x: number, y: number): void {
    xtest.FakeInput(xtest.MotionNotify, 0, 0, this.#conn.root, x, y);
  }

  /** Holds `held`, presses `key` (with Shift if the key sits on the shifted level), releases in reverse. */
  async #chord(xtest: Xtest, keymap: Keymap, chord: Chord): Promise<void> {
    const held = await Promise.all(chord.held.map((ks) => keymap.keycode(ks)));
    const key = await keymap.keycode(chord.key);
    const down = held.map((k) => k.keycode);
    if (key.shifted) {
      const shift = (await keymap.keycode(0xffe1)).keycode;
      if (!down.includes(shift)) down.push(shift);
    }
    for (const k of down) xtest.FakeInput(xtest.KeyPress, k, 0, 0, 0, 0);
    xtest.FakeInput(xtest.KeyPress, key.keycode, 0, 0, 0, 0);
    xtest.FakeInput(xtest.KeyRelease, key.keycode, 0, 0, 0, 0);
    for (const k of down.reverse()) xtest.FakeInput(xtest.KeyRelease, k, 0, 0, 0, 0);
  }
}
