// How long each command of the README's walkthrough takes, as a user pasting it sees it: the same
// blocks test/readme-walkthrough.test.ts runs, in one bash, against `sandbay server` started as
// `npm start` starts it (its own process, linux driver). Bash's DEBUG trap stamps every top-level
// command with the time it began; a command's time is the gap to the next stamp. The waits the README
// announces (`curl --retry` while the warm pool boots, the `until` loop that waits for the terminal's
// window) are marked as such. Each round starts a fresh server.
//
//   node bench/readme-steps.ts             (3 rounds)
//   node bench/readme-steps.ts --rounds 5
//
// Runs as root (the linux driver). Prints a markdown table: per command, median and worst over rounds.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeCheckout, Shell, walkthroughBlocks } from '../test/support/readme.ts';
import { startServerProcess, stopServerProcess } from '../test/support/server-process.ts';

const ROOT = join(import.meta.dirname, '..');
const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds takes a whole number ≥ 1');
/** Commands the README announces as waits: they take as long as what they wait for. */
const ANNOUNCED_WAIT = [/curl -sf --retry/, /^until /, /^sleep /];
const STAMP = '__stamp__';

interface Timed {
  block: number;
  command: string;
  ms: number;
}

/**
 * Turns the DEBUG-trap stamps of one block into commands and durations. The trap stamps each part of
 * a pipeline (`curl … | jq …`): a `jq` counts with the command it reads from. The `until` loop's
 * passes (its condition and its `sleep`) count as one wait.
 */
function durations(block: number, stderr: string, endNs: bigint): Timed[] {
  const stamps = stderr
    .split('\n')
    .filter((l) => l.startsWith(STAMP))
    .map((l) => {
      const [, ns, ...cmd] = l.split(' ');
      return { ns: BigInt(ns!), command: cmd.join(' ') };
    });
  const out: Timed[] = [];
  for (let i = 0; i < stamps.length; i++) {
    const s = stamps[i]!;
    const ms = Number((stamps[i + 1]?.ns ?? endNs) - s.ns) / 1e6;
    const prev = out.at(-1);
    const waiting = prev?.command.startsWith('until');
    if (
      prev &&
      (s.command.startsWith('jq ') ||
        s.command.startsWith('sleep ') ||
        (waiting && s.command.includes('display/windows')))
    ) {
      prev.ms += ms;
      continue;
    }
    const command = s.command.includes('display/windows')
      ? 'until … display/windows … (the terminal focused)'
      : s.command;
    out.push({ block, command, ms });
  }
  return out;
}

async function round(): Promise<Timed[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'sandbay-readme-bench-'));
  const server = await startServerProcess(join(scratch, 'server-data'));
  const work = await readmeCheckout(ROOT, scratch, join(scratch, 'server-data'));
  const shell = new Shell(work, {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SANDBAY_URL: server.adminUrl,
  });
  try {
    const port = new URL(server.url).port;
    const blocks = walkthroughBlocks(await readFile(join(ROOT, 'README.md'), 'utf8'), port);
    await shell.run(`trap 'echo "${STAMP} $(date +%s%N) $BASH_COMMAND" >&2' DEBUG`);
    const timed: Timed[] = [];
    for (const [i, block] of blocks.entries()) {
      const r = await shell.run(block);
      if (r.status !== 0) throw new Error(`block ${i} failed (${r.status}): ${r.stderr}`);
      // The end of a block: the wall clock now, in the trap's units (ns since the epoch).
      const endNs = BigInt(Date.now()) * 1_000_000n;
      // The trap also stamps the marker `echo` Shell appends; it ends the block's last command.
      timed.push(
        ...durations(i, r.stderr, endNs).filter((t) => !t.command.startsWith('echo "__readme_step_')),
      );
    }
    return timed;
  } finally {
    shell.close();
    await stopServerProcess(server);
    await rm(scratch, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

const rounds: Timed[][] = [];
const load: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  load.push(loadavg()[0]!);
  rounds.push(await round());
  process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
}
console.log(
  `README walkthrough, ${ROUNDS} rounds (fresh server each), load average ${load.map((l) => l.toFixed(1)).join(' / ')}\n`,
);
console.log('| step | command | median ms | worst ms | announced wait |');
console.log('|---|---|---|---|---|');
for (const [i, t] of rounds[0]!.entries()) {
  const ms = rounds.map((r) => r[i]?.ms ?? NaN);
  const wait = ANNOUNCED_WAIT.some((re) => re.test(t.command)) || t.command.startsWith('until');
  const cmd = t.command.length > 70 ? `${t.command.slice(0, 67)}…` : t.command;
  console.log(
    `| ${t.block} | \`${cmd.replaceAll('|', '\\|')}\` | ${median(ms).toFixed(0)} | ${Math.max(...ms).toFixed(0)} | ${wait ? 'yes' : ''} |`,
  );
}
