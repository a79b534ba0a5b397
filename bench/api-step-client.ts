// The client of the agent-step rows of bench/api.ts, in its own thread: `count` requests one after
// the other, each timed from send to the last byte of its answer, as an agent's loop calls them.
// Its own thread, so that the client's fetch and the body it reads do not run on the server's
// event loop (a client runs elsewhere; in the server's thread its CPU was counted twice).
import { parentPort, workerData } from 'node:worker_threads';

interface Step {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  count: number;
  warmup: number;
}

const { url, method, headers, body, count, warmup } = workerData as Step;

async function call(): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { method, headers, ...(body !== undefined && { body }) });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status}`);
  return performance.now() - t;
}

for (let i = 0; i < warmup; i++) await call();
const ms: number[] = [];
for (let i = 0; i < count; i++) ms.push(await call());
parentPort!.postMessage(ms);
