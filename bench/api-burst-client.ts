// The client of the burst (bench/api-burst.ts), in its own thread: 100 POST /v1/sandboxes sent at
// once, each timed from send to answer (a fresh connection each, as 100 clients would), without
// sharing the server's event loop. The thread starts once and sends a burst per message: its own
// start (loading and compiling this module, ~150 ms of CPU here) must not run beside the server
// during a burst, on two cores. Plain `node:http`, not fetch: undici's per-request machinery
// (web streams, dispatcher) cost this thread ~3.7 ms of CPU per create, more than the server's
// ~1 ms, and on two cores the client's CPU was taken from the server it measures.
import { request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url, headers } = workerData as { url: string; headers: Record<string, string> };

function post(): Promise<{ ms: number; status: number; boot?: string; error?: string; id?: string }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
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

parentPort!.on('message', (count: number) => {
  void Promise.all(Array.from({ length: count }, post)).then((results) => parentPort!.postMessage(results));
});
parentPort!.postMessage('ready');
