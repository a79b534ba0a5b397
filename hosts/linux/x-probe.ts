// The few X11 requests the lifecycle needs to see a display answer and a desktop session arrive,
// spoken directly over the display's Unix socket (connection setup, InternAtom, GetSelectionOwner,
// GetProperty, GetWindowAttributes).
// The guest half has a full X client; this stays tiny so that booting a VM depends on nothing else.
// A request that times out (a stalled or starved X server) may still be answered later: replies are
// matched by sequence number and taken whole, so a late answer is skipped and never read as the
// answer to the next request (which made a boot's readiness probe read every later answer one off).
// One request at a time: callers await each before the next.
import { connect, type Socket } from 'node:net';
import { DriverError } from '../driver.ts';

const pad4 = (n: number) => (4 - (n % 4)) % 4;

export class XProbe {
  readonly #sock: Socket;
  #buf = Buffer.alloc(0);
  #waiter: (() => void) | undefined;
  #failed: Error | undefined;
  /** The sequence number of the last request sent (X counts them from 1, modulo 2^16). */
  #seq = 0;
  readonly #timeoutMs: number;
  /** The first screen's root window, from the connection setup. */
  root = 0;

  private constructor(sock: Socket, timeoutMs: number) {
    this.#sock = sock;
    this.#timeoutMs = timeoutMs;
    sock.on('data', (b: Buffer) => {
      this.#buf = Buffer.concat([this.#buf, b]);
      this.#waiter?.();
    });
    const fail = (e: Error) => {
      this.#failed ??= e;
      this.#waiter?.();
    };
    sock.on('error', fail);
    sock.on('close', () => fail(new DriverError('command_failed', 'X server closed the connection')));
  }

  /**
   * Connects to the X server listening on `socket` (a socket file, e.g. /tmp/.X11-unix/X3) with an
   * MIT-MAGIC-COOKIE-1 and completes the setup handshake; `timeoutMs` bounds the handshake and each
   * request.
   */
  static async connect(socket: string, cookie: Buffer, timeoutMs = 2000): Promise<XProbe> {
    const sock = connect({ path: socket });
    const x = new XProbe(sock, timeoutMs);
    const name = Buffer.from('MIT-MAGIC-COOKIE-1');
    const head = Buffer.alloc(12);
    head.write('l', 0, 'latin1'); // little-endian
    head.writeUInt16LE(11, 2);
    head.writeUInt16LE(0, 4);
    head.writeUInt16LE(name.length, 6);
    head.writeUInt16LE(cookie.length, 8);
    sock.write(
      Buffer.concat([head, name, Buffer.alloc(pad4(name.length)), cookie, Buffer.alloc(pad4(cookie.length))]),
    );
    try {
      const fixed = await x.#read(8, timeoutMs);
      const rest = await x.#read(fixed.readUInt16LE(6) * 4, timeoutMs);
      if (fixed[0] !== 1) {
        const reason = rest.subarray(0, fixed[1] ?? 0).toString('latin1');
        throw new DriverError(
          'command_failed',
          `X server refused the connection: ${reason || 'no reason given'}`,
        );
      }
      // The setup's fixed 32 bytes, the vendor string and the pixmap formats precede the first screen.
      const vendor = rest.readUInt16LE(16);
      const formats = rest[21] ?? 0;
      x.root = rest.readUInt32LE(32 + vendor + pad4(vendor) + 8 * formats);
    } catch (e) {
      x.close();
      throw e;
    }
    return x;
  }

  async internAtom(atomName: string): Promise<number> {
    const name = Buffer.from(atomName, 'latin1');
    const req = Buffer.alloc(8 + name.length + pad4(name.length));
    req[0] = 16;
    req.writeUInt16LE(req.length / 4, 2);
    req.writeUInt16LE(name.length, 4);
    name.copy(req, 8);
    return (await this.#request(req)).readUInt32LE(8);
  }

  /** The window owning a selection, 0 when none does. */
  async selectionOwner(atom: number): Promise<number> {
    const req = Buffer.alloc(8);
    req[0] = 23;
    req.writeUInt16LE(2, 2);
    req.writeUInt32LE(atom, 4);
    return (await this.#request(req)).readUInt32LE(8);
  }

  /** A property's 32-bit values (window lists, cardinals); empty when the window has none. */
  async property32(window: number, property: number, type = 0, longs = 1024): Promise<number[]> {
    const req = Buffer.alloc(24);
    req[0] = 20;
    req.writeUInt16LE(6, 2);
    req.writeUInt32LE(window, 4);
    req.writeUInt32LE(property, 8);
    req.writeUInt32LE(type, 12);
    req.writeUInt32LE(0, 16);
    req.writeUInt32LE(longs, 20);
    const reply = await this.#request(req);
    if (reply[1] !== 32) return [];
    const out: number[] = [];
    for (let i = 0; i < reply.readUInt32LE(16); i++) out.push(reply.readUInt32LE(32 + 4 * i));
    return out;
  }

  /** A property's bytes as latin1 text (WM_CLASS, WM_NAME). */
  async propertyText(window: number, property: number): Promise<string> {
    const req = Buffer.alloc(24);
    req[0] = 20;
    req.writeUInt16LE(6, 2);
    req.writeUInt32LE(window, 4);
    req.writeUInt32LE(property, 8);
    req.writeUInt32LE(1024, 20);
    const reply = await this.#request(req);
    if (reply[1] !== 8) return '';
    return reply.subarray(32, 32 + reply.readUInt32LE(16)).toString('latin1');
  }

  /** Whether the window is mapped and all its ancestors too (map state Viewable). */
  async viewable(window: number): Promise<boolean> {
    const req = Buffer.alloc(8);
    req[0] = 3;
    req.writeUInt16LE(2, 2);
    req.writeUInt32LE(window, 4);
    return (await this.#request(req))[26] === 2;
  }

  close(): void {
    this.#sock.destroy();
  }

  async #request(req: Buffer): Promise<Buffer> {
    this.#sock.write(req);
    const seq = (this.#seq = (this.#seq + 1) & 0xffff);
    const deadline = Date.now() + this.#timeoutMs;
    for (;;) {
      const message = await this.#message(deadline);
      // An event: the probe selects none, but some go to every client (MappingNotify when a
      // keyboard mapping changes, as xdotool's typing does).
      if (message[0]! > 1) continue;
      // Older: the answer to a request that timed out.
      if (message.readUInt16LE(2) !== seq) continue;
      if (message[0] === 0)
        throw new DriverError('command_failed', `X request ${req[0]} failed with error ${message[1]}`);
      return message;
    }
  }

  /**
   * The next whole message, consumed only when complete: 32 bytes, and the extra length a reply or
   * a GenericEvent (35; bit 7 marks a SendEvent) declares.
   */
  async #message(deadline: number): Promise<Buffer> {
    await this.#buffered(32, deadline);
    const type = this.#buf[0]! & 0x7f;
    const extra = type === 1 || type === 35 ? this.#buf.readUInt32LE(4) * 4 : 0;
    await this.#buffered(32 + extra, deadline);
    // Copied: the read buffer's bytes are a view that later reads replace.
    const out = Buffer.from(this.#buf.subarray(0, 32 + extra));
    this.#buf = this.#buf.subarray(32 + extra);
    return out;
  }

  async #read(n: number, timeoutMs: number): Promise<Buffer> {
    await this.#buffered(n, Date.now() + timeoutMs);
    const out = this.#buf.subarray(0, n);
    this.#buf = this.#buf.subarray(n);
    return out;
  }

  /** Waits until `n` bytes are buffered. */
  async #buffered(n: number, deadline: number): Promise<void> {
    while (this.#buf.length < n) {
      if (this.#failed) throw this.#failed;
      const left = deadline - Date.now();
      if (left <= 0) throw new DriverError('timeout', 'X server did not answer');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.#waiter = undefined;
    }
  }
}
