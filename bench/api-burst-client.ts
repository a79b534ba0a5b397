// The client of the burst (bench/api-burst.ts), in its own thread: 100 POST /v1/sandboxes sent at
// once, each timed from send to answer, without sharing the server's event loop. Each create opens
// a connection of its own (as 100 clients would) and keeps it alive, as both SDKs do (sdk/python's
// _http.py, the TypeScript SDK's fetch); the burst's connections are closed once the bench has
// taken its figures, outside the burst. (Until 2026-11-28 each create closed its connection (agent:
// false, Connection: close), so the server's teardown of 100 sockets ran inside the burst, which no
// SDK client asks for: bench/README.md.) The thread starts once and sends a burst per message: its
// own start (loading and compiling this module, ~150 ms of CPU here) must not run beside the server
// during a burst, on two cores. Plain `node:http`, not fetch: undici's per-request machinery (web
// streams, dispatcher) cost this thread ~3.7 ms of CPU per create, more than the server's ~1 ms,
// and on two cores the client's CPU was taken from the server it measures.
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url, headers } = workerData as { url: string; headers: Record<string, string> };

function post(
  agent: Agent,
): Promise<{ ms: number; status: number; boot?: string; error?: string; id?: string }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          boot?: string;
          error?: string;
          sandbox_id?: string;
        };
        resolve({
          ms: performance.now() - t,
          status: res.statusCode ?? 0,
          boot: body.boot,
          error: body.error,
          id: body.sandbox_id,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

// A pool of its own per burst: each create on a fresh connection, none shared with an earlier burst.
let agent: Agent | undefined;

parentPort!.on('message', (m: number | 'close') => {
  agent?.destroy();
  if (m === 'close') {
    parentPort!.postMessage('closed');
    return;
  }
  const pool = (agent = new Agent({ keepAlive: true, maxSockets: Infinity }));
  void Promise.all(Array.from({ length: m }, () => post(pool))).then((results) =>
    parentPort!.postMessage(results),
  );
});
parentPort!.postMessage('ready');
