// The client of bench/evaluation.ts, in its own process: pairs of calls on one sandbox, the bare
// `exec` of a command and the same command as a setup step (or a grader check), alternating which
// goes first, each timed from send to the last byte of its answer. Prints the samples as JSON.
interface Job {
  base: string;
  key: string;
  count: number;
  /** `count` overrides the job's for that pair (the window tree takes 100× an exec). */
  pairs: { name: string; bare: Call; evaluated: Call; count?: number }[];
}
interface Call {
  path: string;
  /** Absent: a GET. */
  body?: unknown;
}

const job = JSON.parse(process.argv[2]!) as Job;
const headers = { authorization: `Bearer ${job.key}`, 'content-type': 'application/json' };

async function timed(call: Call): Promise<number> {
  const t = performance.now();
  const res = await fetch(
    `${job.base}${call.path}`,
    call.body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(call.body) },
  );
  const text = await res.text();
  if (!res.ok) throw new Error(`${call.path}: ${res.status} ${text}`);
  return performance.now() - t;
}

const out: Record<string, { bare: number[]; evaluated: number[] }> = {};
for (const pair of job.pairs) {
  const samples = { bare: [] as number[], evaluated: [] as number[] };
  for (let i = 0; i < 3; i++) {
    await timed(pair.bare);
    await timed(pair.evaluated);
  }
  for (let i = 0; i < (pair.count ?? job.count); i++) {
    const first = i % 2 === 0 ? 'bare' : 'evaluated';
    const second = first === 'bare' ? 'evaluated' : 'bare';
    samples[first].push(await timed(pair[first]));
    samples[second].push(await timed(pair[second]));
  }
  out[pair.name] = samples;
}
process.stdout.write(JSON.stringify(out));
