// One HTTP/1.1 connection driven by hand: requests are sent one after the other on the same socket
// and each answer is read whole, headers as the server wrote them (names, order, values). For tests
// that need to know which connection a request used, or compare answers byte for byte.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header lines as sent: `[name, value]`, in order, names as written. */
  headers: [string, string][];
  body: string;
}

export interface RawConnection {
  request(method: string, path: string, headers?: Record<string, string>): Promise<RawAnswer>;
  close(): void;
}

export async function rawConnection(port: number, host = '127.0.0.1'): Promise<RawConnection> {
  const socket: Socket = connect(port, host);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffered = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  let ended = false;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake?.();
  });
  socket.on('close', () => {
    ended = true;
    wake?.();
  });
  const more = () =>
    new Promise<void>((resolve, reject) => {
      if (ended) reject(new Error('the connection closed before the answer was complete'));
      wake = () => {
        wake = undefined;
        resolve();
      };
    });

  return {
    async request(method, path, headers = {}) {
      const lines = [`${method} ${path} HTTP/1.1`, 'Host: localhost'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) < 0) await more();
      const [statusLine, ...headerLines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const parsed = headerLines.map((l): [string, string] => {
        const colon = l.indexOf(':');
        return [l.slice(0, colon), l.slice(colon + 1).trim()];
      });
      const length = Number(parsed.find(([n]) => n.toLowerCase() === 'content-length')?.[1] ?? 0);
      const bodyLength = method === 'HEAD' ? 0 : length;
      while (buffered.length < end + 4 + bodyLength) await more();
      const body = buffered.subarray(end + 4, end + 4 + bodyLength).toString('utf8');
      buffered = buffered.subarray(end + 4 + bodyLength);
      return { status: Number(statusLine!.split(' ')[1]), headers: parsed, body };
    },
    close: () => socket.destroy(),
  };
}
