// The emulated Mac's stand-in for Virtualization.framework's VNC server (Tart's `--vnc-experimental`,
// which runs in the `tart run` process). The framebuffer comes from the VM's x11vnc, relayed byte for
// byte (its RFB version, security type, encodings and updates); input does not go through x11vnc,
// which would add Shift for an upper-case keysym and bind keys for any Unicode keysym. Each
// KeyEvent presses the physical key its keysym names (vz-keys.ts), and each PointerEvent moves and
// clicks, through XTEST on the VM's display, in the order the client sent them. ClientCutText is
// dropped: nothing says the framework's server takes the client's clipboard.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { Xtest } from '../../../hosts/linux/input.ts';
import type { X11Connection } from '../../../hosts/linux/x11-connection.ts';
import { vzKeycode } from './vz-keys.ts';

/** RFB button-mask bits → X buttons (left, middle, right, wheel up/down/left/right). */
const BUTTON_BITS = [1, 2, 3, 4, 5, 6, 7];

export interface VzVnc {
  port: number;
  close(): void;
}

/**
 * Listens on 127.0.0.1 (a free port) and relays each client to x11vnc at `upstream`, with input
 * injected through `x` as the framework's server does.
 */
export async function startVzVnc(upstream: { host: string; port: number }, x: X11Connection): Promise<VzVnc> {
  const xtest = await x.extension<Xtest>('xtest');
  if (!xtest) throw new Error(`X display ${x.display} lacks XTEST`);
  const clients = new Set<Socket>();
  const server: Server = createServer((client) => {
    clients.add(client);
    const up = connect(upstream.port, upstream.host);
    const done = () => {
      clients.delete(client);
      client.destroy();
      up.destroy();
    };
    client.on('error', done).on('close', done);
    up.on('error', done).on('close', done);
    up.pipe(client);
    const filter = new ClientStream((bytes) => up.write(bytes), new XInput(xtest), done);
    client.on('data', (chunk: Buffer) => filter.push(chunk));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    close() {
      server.close();
      for (const c of clients) c.destroy();
    },
  };
}

/** Pointer and keys through XTEST: the pointer's last mask, to press and release what changed. */
class XInput {
  readonly #xtest: Xtest;
  #mask = 0;

  constructor(xtest: Xtest) {
    this.#xtest = xtest;
  }

  key(keysym: number, down: boolean): void {
    const code = vzKeycode(keysym);
    if (code === undefined) return;
    this.#xtest.FakeInput(down ? this.#xtest.KeyPress : this.#xtest.KeyRelease, code, 0, 0, 0, 0);
  }

  pointer(mask: number, x: number, y: number): void {
    const t = this.#xtest;
    t.FakeInput(t.MotionNotify, 0, 0, 0, x, y);
    BUTTON_BITS.forEach((button, bit) => {
      const was = (this.#mask >> bit) & 1;
      const now = (mask >> bit) & 1;
      if (was !== now) t.FakeInput(now ? t.ButtonPress : t.ButtonRelease, button, 0, 0, 0, 0);
    });
    this.#mask = mask;
  }
}

type Step = 'version' | 'security' | 'response' | 'init' | 'messages';

/**
 * The client's half of the RFB stream, read message by message: the handshake and the messages
 * x11vnc serves go on unchanged; KeyEvent and PointerEvent become input; ClientCutText is dropped.
 */
class ClientStream {
  #buf = Buffer.alloc(0);
  /** Where the stream is: the handshake's steps (each passed on whole), then messages. */
  #step: Step = 'version';
  readonly #forward: (b: Buffer) => void;
  readonly #input: XInput;
  readonly #fail: () => void;

  constructor(forward: (b: Buffer) => void, input: XInput, fail: () => void) {
    this.#forward = forward;
    this.#input = input;
    this.#fail = fail;
  }

  push(chunk: Buffer): void {
    this.#buf = Buffer.concat([this.#buf, chunk]);
    for (;;) {
      const used = this.#next();
      if (used === 0) return;
      this.#buf = this.#buf.subarray(used);
    }
  }

  /** Handles the next whole unit in the buffer; the bytes it took (0: wait for more). */
  #next(): number {
    const b = this.#buf;
    switch (this.#step) {
      case 'version':
        return this.#pass(
          12,
          b.subarray(0, 12).toString('latin1') === 'RFB 003.003\n' ? 'response' : 'security',
        );
      case 'security':
        // Type 2 (VNC authentication) is followed by the 16-byte response; type 1 (None) by nothing.
        if (b.length < 1) return 0;
        return this.#pass(1, b[0] === 2 ? 'response' : 'init');
      case 'response':
        return this.#pass(16, 'init');
      case 'init':
        return this.#pass(1, 'messages');
      case 'messages':
        return this.#message();
    }
  }

  #pass(n: number, then: Step): number {
    if (this.#buf.length < n) return 0;
    this.#forward(this.#buf.subarray(0, n));
    this.#step = then;
    return n;
  }

  #message(): number {
    const b = this.#buf;
    if (b.length < 1) return 0;
    const whole = (n: number) => (b.length >= n ? n : 0);
    switch (b[0]) {
      case 0: // SetPixelFormat
      case 3: // FramebufferUpdateRequest
      case 150: {
        // EnableContinuousUpdates
        const n = whole(b[0] === 0 ? 20 : 10);
        if (n) this.#forward(b.subarray(0, n));
        return n;
      }
      case 2: {
        // SetEncodings
        if (b.length < 4) return 0;
        const n = whole(4 + 4 * b.readUInt16BE(2));
        if (n) this.#forward(b.subarray(0, n));
        return n;
      }
      case 4: {
        // KeyEvent
        const n = whole(8);
        if (n) this.#input.key(b.readUInt32BE(4), b[1] !== 0);
        return n;
      }
      case 5: {
        // PointerEvent
        const n = whole(6);
        if (n) this.#input.pointer(b[1]!, b.readUInt16BE(2), b.readUInt16BE(4));
        return n;
      }
      case 6: {
        // ClientCutText
        if (b.length < 8) return 0;
        return whole(8 + b.readUInt32BE(4));
      }
      default:
        // A message this server does not know: the connection is closed, as a server must.
        this.#fail();
        return 0;
    }
  }
}
