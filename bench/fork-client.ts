// The client of bench/fork.ts, in a process of its own: it drives the API over HTTP and times each
// call as a client sees it. Argument: a JSON `{url, key, rounds}`. Prints one JSON line of results.
//
// Per round, with the warm pools full before each measurement (so each starts from the same fleet):
// a warm create, a snapshot restore, a fork of the running source desktop into 1, 2 and 4 (time to
// all running: the call's answer), and a pause → resume round trip of the source.
const { url, key, rounds } = JSON.parse(process.argv[2]!) as { url: string; key: string; rounds: number };
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

/** The fields of the answers this client reads. */
interface Answer {
  sandbox_id: string;
  version: string;
  sandboxes: { sandbox_id: string }[];
  reservation: { minis: { sandboxes: number; warm_vms: unknown[]; max_sandboxes: number }[] };
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Answer }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as Answer };
}

async function ok(method: string, path: string, body?: unknown): Promise<Answer> {
  const r = await call(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

async function timed(method: string, path: string, body?: unknown): Promise<{ ms: number; json: Answer }> {
  const t0 = performance.now();
  const json = await ok(method, path, body);
  return { ms: performance.now() - t0, json };
}

/** Polls (a few times a second: the pools take seconds) until every VM of the reservation is warm. */
async function poolsFull(): Promise<void> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const p = await ok('GET', '/v1/platforms');
    const minis = p.reservation.minis;
    if (minis.every((m) => m.warm_vms.length >= m.max_sandboxes - m.sandboxes)) return;
    if (Date.now() > deadline) throw new Error(`the pools did not refill: ${JSON.stringify(minis)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function remove(ids: string[]): Promise<void> {
  for (const id of ids) await ok('DELETE', `/v1/sandboxes/${id}`);
}

const results: Record<string, number[]> = {};
const note = (what: string, ms: number) => (results[what] ??= []).push(ms);

await poolsFull();
const source = (await ok('POST', '/v1/sandboxes', { host: 'local' })).sandbox_id;
// A desktop in use: files written, a terminal and an editor open, a browser profile touched.
await ok('POST', `/v1/sandboxes/${source}/exec`, {
  command:
    'mkdir -p ~/work && head -c 8000000 /dev/urandom > ~/work/blob && echo state > ~/work/s.txt && ' +
    '(xfce4-terminal & mousepad ~/work/s.txt &) ; sleep 2; du -sk ~ | cut -f1',
});
const snapshot = (await ok('POST', `/v1/sandboxes/${source}/snapshots`, { name: 'bench' })).version;

for (let round = 0; round < rounds; round++) {
  await poolsFull();
  const warm = await timed('POST', '/v1/sandboxes', {});
  note('warm create', warm.ms);
  await remove([warm.json.sandbox_id]);

  await poolsFull();
  const restored = await timed('POST', '/v1/sandboxes', { snapshot });
  note('snapshot restore', restored.ms);
  await remove([restored.json.sandbox_id]);

  for (const n of [1, 2, 4]) {
    await poolsFull();
    const forked = await timed('POST', `/v1/sandboxes/${source}/fork`, { count: n });
    note(`fork into ${n}`, forked.ms);
    await remove(forked.json.sandboxes.map((s) => s.sandbox_id));
  }

  for (let i = 0; i < 5; i++) {
    const pause = await timed('POST', `/v1/sandboxes/${source}/pause`);
    const resume = await timed('POST', `/v1/sandboxes/${source}/resume`);
    note('pause', pause.ms);
    note('resume', resume.ms);
    note('pause → resume round trip', pause.ms + resume.ms);
  }
  // Resumed, it answers at once.
  const exec = await timed('POST', `/v1/sandboxes/${source}/exec`, { command: 'cat ~/work/s.txt' });
  note('exec right after resume', exec.ms);
}
await remove([source]);
await ok('DELETE', `/v1/snapshots/${snapshot}`);
process.stdout.write(`${JSON.stringify(results)}\n`);
