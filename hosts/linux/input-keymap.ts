// keysym → keycode for XTEST, per connection. A keysym the keyboard map lacks (most of Unicode) is
// bound to a spare keycode (one whose row is empty) with ChangeKeyboardMapping, as xdotool does.
// Unlike xdotool, the binding is kept (reused, evicted least-recently-used) rather than reverted
// right after the keystroke: a client that looks the keycode up after the revert would see the
// wrong character.
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
      }
      return found;
    }
    return { keycode: this.#bind(keysym), shifted: false };
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

  #bind(keysym: number): number {
    let keycode = this.#spare.shift();
    if (keycode === undefined) {
      const oldest = this.#scratch.entries().next();
      if (oldest.done)
        throw new DriverError('command_failed', 'the keyboard map has no spare keycode to bind');
      const [oldKeysym, oldKeycode] = oldest.value;
      this.#scratch.delete(oldKeysym);
      keycode = oldKeycode;
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
