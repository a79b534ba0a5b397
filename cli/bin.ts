#!/usr/bin/env node
// The sandbay CLI: `node cli/bin.ts` from the sources, `dist/cli/bin.js` (the package's bin) built.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major = 0] = process.versions.node.split('.').map(Number);
if (major < 24) {
  console.error(`sandbay needs Node.js 24 or later; this is ${process.version}`);
  process.exit(1);
}

// package.json names the commands' module as the sources have it (./cli/commands.ts); built, the
// commands are dist/cli/commands.js, and oclif is handed package.json with that target instead.
const built = !import.meta.url.endsWith('.ts');
const root = new URL(built ? '../../' : '../', import.meta.url);
const pjson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  oclif: { commands: { target: string } };
};
if (built) pjson.oclif.commands.target = './dist/cli/commands.js';

const { execute } = await import('@oclif/core');
await execute({ loadOptions: { root: fileURLToPath(root), pjson: pjson as never } });
