// The import graph of the repository's own TypeScript (issue 10, item 4): no import cycles (type-only
// imports included, as madge counts them: a cycle of types still ties two modules' shapes to each
// other), and nothing under web/ imports from api/ (web/ holds the pages' assets; the routes that
// serve them live with the API). Read with the TypeScript parser the project already has, one file at
// a time; relative specifiers only (packages cannot close a cycle through this tree).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'dist', 'data', '.git']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  source.forEachChild((node) => {
    if (!ts.isImportDeclaration(node) && !ts.isExportDeclaration(node)) return;
    const spec = node.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) return;
    const target = path.resolve(path.dirname(file), spec.text);
    if (existsSync(target)) out.push(target);
  });
  return out;
}

const graph = new Map(sourceFiles(ROOT).map((f) => [f, importsOf(f)]));
const rel = (f: string) => path.relative(ROOT, f);

/** Every cycle a depth-first walk closes (at least one whenever the graph has any). */
function cycles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].map(rel));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('import graph', () => {
  it('reads the whole tree', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get(path.join(ROOT, 'api/app.ts'))).toContain(path.join(ROOT, 'api/auth.ts'));
  });

  it('has no import cycle', () => {
    expect(cycles().map((c) => c.join(' → '))).toEqual([]);
  });

  it('has no arrow from web/ to api/', () => {
    const arrows = [...graph]
      .filter(([file]) => rel(file).startsWith('web/'))
      .flatMap(([file, deps]) =>
        deps.filter((d) => rel(d).startsWith('api/')).map((d) => `${rel(file)} → ${rel(d)}`),
      );
    expect(arrows).toEqual([]);
  });
});
