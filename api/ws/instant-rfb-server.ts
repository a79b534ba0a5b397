// An RFB (VNC) server that answers every FramebufferUpdateRequest at once with raw pixels, for the
// relay's tests and benchmark: next to x11vnc (which answers on its own polling loop, ~20 ms), it
// shows what a path itself costs. RFB 3.8; VNC authentication when given a password, else None;
// 32 bits per pixel; the pixels are a fixed pattern (byte i of the framebuffer is i mod 251), so a
// receiver can check that they arrived intact.
import { createServer, type Server, type Socket } from 'node:net';
import { timingSafeEqual, randomBytes } from 'node:crypto';
import { ByteReader } from './byte-reader.ts';
import { vncAuthResponse } from './vnc-des.ts';

export interface InstantRfbServer {
  host: string;
  port: number;
  /** The open client connections (tests look at their write buffers). */
  readonly connections: Set<Socket>;
  close(): Promise<void>;
}

/** Byte i of the framebuffer (row-major, 4 bytes per pixel). */
export function patternByte(i: number): number {
  return i % 251;
}

export async function startInstantRfbServer(opts: {
  host?: string;
  password?: string;
  width?: number;
  height?: number;
}): Promise<InstantRfbServer> {
  const width = opts.width ?? 1280;
  const height = opts.height ?? 800;
  const framebuffer = Buffer.allocUnsafe(width * height * 4);
  for (let i = 0; i < framebuffer.length; i++) framebuffer[i] = patternByte(i);
  const connections = new Set<Socket>();
  const server: Server = createServer({ noDelay: true }, (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    void serve(socket, { width, height, framebuffer, password: opts.password }).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, opts.host ?? '127.0.0.1', resolve));
  const address = server.address() as { address: string; port: number };
  return {
    host: address.address,
    port: address.port,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of connections) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function serve(
  socket: Socket,
  fb: { width: number; height: number; framebuffer: Buffer; password: string | undefined },
): Promise<void> {
  const reader = new ByteReader();
  socket.on('data', (b: Buffer) => reader.push(b));
  socket.on('close', () => reader.fail(new Error('closed')));
  socket.write('RFB 003.008\n');
  await reader.read(12);
  const auth = fb.password !== undefined;
  socket.write(Buffer.from([1, auth ? 2 : 1]));
  if ((await reader.readU8()) !== (auth ? 2 : 1)) throw new Error('unexpected security type');
  if (auth) {
    const challenge = randomBytes(16);
    socket.write(challenge);
    const response = await reader.read(16);
    if (!timingSafeEqual(response, vncAuthResponse(fb.password!, challenge))) {
      const reason = Buffer.from('authentication failed');
      const failed = Buffer.alloc(8);
      failed.writeUInt32BE(1, 0);
      failed.writeUInt32BE(reason.length, 4);
      socket.end(Buffer.concat([failed, reason]));
      return;
    }
  }
  socket.write(Buffer.alloc(4)); // SecurityResult OK
  await reader.readU8(); // ClientInit
  const name = Buffer.from('instant');
  const init = Buffer.alloc(24 + name.length);
  init.writeUInt16BE(fb.width, 0);
  init.writeUInt16BE(fb.height, 2);
  // 32 bpp, depth 24, little endian, true colour, max 255 each, shifts 16/8/0.
  Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]).copy(init, 4);
  init.writeUInt32BE(name.length, 20);
  name.copy(init, 24);
  socket.write(init);
  for (;;) {
    const type = await reader.readU8();
    if (type === 0)
      await reader.skip(19); // SetPixelFormat (ignored: always 32 bpp)
    else if (type === 2)
      await reader.skip((await reader.read(3)).readUInt16BE(1) * 4); // SetEncodings
    else if (type === 3) sendUpdate(socket, fb, await reader.read(9));
    else if (type === 4)
      await reader.skip(7); // KeyEvent
    else if (type === 5)
      await reader.skip(5); // PointerEvent
    else if (type === 6)
      await reader.skip((await reader.read(7)).readUInt32BE(3)); // ClientCutText
    else throw new Error(`unknown client message ${type}`);
  }
}

/** One raw rectangle: the requested region (clipped to the screen), its rows from the framebuffer. */
function sendUpdate(
  socket: Socket,
  fb: { width: number; height: number; framebuffer: Buffer },
  req: Buffer,
): void {
  const x = Math.min(req.readUInt16BE(1), fb.width);
  const y = Math.min(req.readUInt16BE(3), fb.height);
  const w = Math.min(req.readUInt16BE(5), fb.width - x);
  const h = Math.min(req.readUInt16BE(7), fb.height - y);
  const head = Buffer.alloc(16);
  head.writeUInt16BE(1, 2);
  head.writeUInt16BE(x, 4);
  head.writeUInt16BE(y, 6);
  head.writeUInt16BE(w, 8);
  head.writeUInt16BE(h, 10);
  socket.cork();
  socket.write(head);
  const stride = fb.width * 4;
  if (x === 0 && w === fb.width) {
    socket.write(fb.framebuffer.subarray(y * stride, (y + h) * stride));
  } else {
    for (let row = y; row < y + h; row++) {
      socket.write(fb.framebuffer.subarray(row * stride + x * 4, row * stride + (x + w) * 4));
    }
  }
  socket.uncork();
}
