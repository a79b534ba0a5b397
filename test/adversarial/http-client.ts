// A hostile client's HTTP: raw node:http requests from a chosen loopback source address (the whole
// 127.0.0.0/8 is local on Linux), so a test can act as several client addresses at once.
import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function httpRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: opts.headers ?? {},
        ...(opts.from !== undefined && { localAddress: opts.from }),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The error code of a JSON error body, or undefined. */
export function errorOf(r: RawResponse): string | undefined {
  try {
    return (JSON.parse(r.body) as { error?: string }).error;
  } catch {
    return undefined;
  }
}
