// `npm run bench`: runs the benchmarks one after the other, each in its own Node process (as its
// header says to run it), and passes their markdown tables through. With names, only those:
//
//   npm run bench                      (all of them: the better part of an hour)
//   npm run bench -- store guest       (these two)
//   npm run bench -- --quick api       (arguments starting with - go to every bench)
//   npm run bench -- --list            (the names)
//
// Most need root (the linux driver creates VM users); `tart` needs the emulated Macs, `sdk` Python.
import { spawn } from 'node:child_process';
import path from 'node:path';

/** Each bench and the Node flags its header asks for. */
export const BENCHES: Record<string, string[]> = {
  store: [],
  guest: [],
  clone: [],
  operator: [],
  api: [],
  'api-burst': [],
  sdk: [],
  kube: [],
  collector: [],
  'collector-settle': [],
  dashboard: [],
  tart: [],
  'readme-steps': [],
  cua: [],
  evaluation: [],
  'evaluation-run': [],
  'mixed-load': ['--expose-gc'],
  fork: [],
  fuzz: [],
  streams: [],
  'hostile-tenant': [],
  'client-view': [],
  'spawn-cost': [],
  'api-burst-process': [],
  agents: [],
  density: [],
};

function runOne(name: string, args: string[]): Promise<number> {
  const file = path.join(import.meta.dirname, `${name}.ts`);
  process.stdout.write(`\n## bench/${name}.ts ${args.join(' ')}\n\n`);
  const child = spawn(process.execPath, [...BENCHES[name]!, file, ...args], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--list')) {
    process.stdout.write(`${Object.keys(BENCHES).join('\n')}\n`);
    return 0;
  }
  const names = argv.filter((a) => !a.startsWith('-'));
  const args = argv.filter((a) => a.startsWith('-'));
  const unknown = names.filter((n) => !(n in BENCHES));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown bench: ${unknown.join(', ')} (known: ${Object.keys(BENCHES).join(', ')})\n`,
    );
    return 2;
  }
  let failed = 0;
  for (const name of names.length > 0 ? names : Object.keys(BENCHES)) {
    const code = await runOne(name, args);
    if (code !== 0) {
      failed++;
      process.stderr.write(`bench/${name}.ts exited with ${code}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main(process.argv.slice(2));
