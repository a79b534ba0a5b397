// keysym → keycode for XTEST, per connection. A keysym the keyboard map lacks (most of Unicode) is
// bound to a spare keycode (one whose row is empty) with ChangeKeyboardMapping, as xdotool does.
// Not the keycodes of vendor media keys (XF86WWW, XF86Mail, …), though a virtual keyboard has no
// such keys: a desktop session grabs them by keycode to launch apps (XFCE does), the grab stays on
// the keycode when it is rebound, and a character typed there went to the grabber (tried: `χ` and
// `語` were lost every time).
// Unlike xdotool, the binding is kept (reused, evicted least-recently-used) rather than reverted
// right after the keystroke: a client that looks the keycode up after the revert would see the
// wrong character. Xvfb's map has ~19 spare keycodes, so a text with more distinct unmapped
// characters (Greek, CJK) rebinds them, pausing before it reuses a keycode typed since the last pause.
import { setTimeout as sleep } from 'node:timers/promises';
import { DriverError } from '../driver.ts';
import type { X11Connection } from './x11-connection.ts';

export interface KeyLocation {
  keycode: number;
  /** The keysym sits on the Shift level of its keycode. */
  shifted: boolean;
}

interface MappingNotify {
  name?: string;
  request?: number;
  firstKeyCode?: number;
  count?: number;
}

/**
 * How long apps get to read queued key events before a keycode they refer to is rebound. 40 ms was
 * enough on an idle machine and not under a load of 10 on 2 cores (a GTK editor then typed later
 * characters in place of earlier ones).
 */
const REBIND_PAUSE_MS = 200;

/** The server's MappingNotify `request` value for a keyboard mapping change. */
const MAPPING_KEYBOARD = 1;

export class Keymap {
  readonly #conn: X11Connection;
  #rows: number[][] = [];
  #perKeycode = 0;
  #stale = false;
  /** Spare keycodes bound by us, least recently used first. */
  readonly #scratch = new Map<number, number>(); // keysym → keycode
  #spare: number[] = [];
  #ownChanges = new Set<number>();
  /** When each spare keycode last typed its keysym (performance.now()). */
  readonly #lastUse = new Map<number, number>();
  /** End of the last rebinding pause: keys typed before it have been read by the apps. */
  #settledAt = 0;

  private constructor(conn: X11Connection) {
    this.#conn = conn;
  }

  static async load(conn: X11Connection): Promise<Keymap> {
    const map = new Keymap(conn);
    await map.#fetch();
    // Another client (setxkbmap, an app) may change the map; refetch before the next lookup.
    conn.client.on('event', (ev: MappingNotify) => {
      if (ev.name !== 'MappingNotify' || ev.request !== MAPPING_KEYBOARD) return;
      if (ev.count === 1 && ev.firstKeyCode !== undefined && map.#ownChanges.delete(ev.firstKeyCode)) return;
      map.#stale = true;
    });
    return map;
  }

  async #fetch(): Promise<void> {
    const conn = this.#conn;
    const count = conn.maxKeycode - conn.minKeycode + 1;
    this.#rows = await conn.request<number[][]>('GetKeyboardMapping', (reply) =>
      conn.client.GetKeyboardMapping(conn.minKeycode, count, reply),
    );
    this.#perKeycode = this.#rows[0]?.length ?? 0;
    const bound = new Set(this.#scratch.values());
    this.#spare = [];
    this.#rows.forEach((row, i) => {
      const keycode = conn.minKeycode + i;
      if (!bound.has(keycode) && row.every((ks) => ks === 0)) this.#spare.push(keycode);
    });
    this.#stale = false;
  }

  async keycode(keysym: number): Promise<KeyLocation> {
    if (this.#stale) await this.#fetch();
    const found = this.#find(keysym);
    if (found) {
      const scratch = this.#scratch.get(keysym);
      if (scratch !== undefined) {
        // Mark as most recently used.
        this.#scratch.delete(keysym);
        this.#scratch.set(keysym, scratch);
        this.#lastUse.set(scratch, performance.now());
      }
      return found;
    }
    const keycode = await this.#bind(keysym);
    this.#lastUse.set(keycode, performance.now());
    return { keycode, shifted: false };
  }

  /** Levels 0 (plain) and 1 (Shift) of the first group only; other levels need modifiers XTEST users rarely mean. */
  #find(keysym: number): KeyLocation | undefined {
    for (const level of [0, 1]) {
      for (let i = 0; i < this.#rows.length; i++) {
        if (this.#rows[i]?.[level] === keysym)
          return { keycode: this.#conn.minKeycode + i, shifted: level === 1 };
      }
    }
    return undefined;
  }

  async #bind(keysym: number): Promise<number> {
    let keycode = this.#spare.shift();
    if (keycode === undefined) {
      const oldest = this.#scratch.entries().next();
      if (oldest.done)
        throw new DriverError('command_failed', 'the keyboard map has no spare keycode to bind');
      const [oldKeysym, oldKeycode] = oldest.value;
      this.#scratch.delete(oldKeysym);
      keycode = oldKeycode;
      // Xlib and GDK apply a mapping change when they read it off the socket, possibly before they
      // translate key events queued ahead of it: a keycode typed since the last pause is rebound
      // only after another pause that lets the app consume those events. LRU order means one pause
      // frees every binding at once, so a long text pauses once per spare-keycode-count new characters.
      if ((this.#lastUse.get(keycode) ?? 0) >= this.#settledAt) {
        await this.#conn.sync();
        await sleep(REBIND_PAUSE_MS);
        this.#settledAt = performance.now();
      }
    }
    // Both levels carry the keysym so that a held Shift does not change the character.
    const row = new Array<number>(this.#perKeycode).fill(0);
    row[0] = keysym;
    if (row.length > 1) row[1] = keysym;
    this.#conn.client.ChangeKeyboardMapping(keycode, this.#perKeycode, row);
    this.#rows[keycode - this.#conn.minKeycode] = row;
    this.#scratch.set(keysym, keycode);
    this.#ownChanges.add(keycode);
    return keycode;
  }
}
