// The files the live view serves, read once into memory when the plugin is registered: the page's
// own assets (web/viewer/page/, assets only) and noVNC's ES modules from node_modules. A request is
// answered by looking its path up in this table, so no part of a URL ever reaches the file system:
// `..`, encoded slashes or absolute paths simply find no entry.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticFile {
  body: Buffer;
  contentType: string;
  /** A strong validator derived from the content (answers If-None-Match with 304). */
  etag: string;
}

export type StaticFiles = ReadonlyMap<string, StaticFile>;

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/** noVNC's package folders the browser needs: the RFB client and the zlib it imports. */
const NOVNC_DIRS = ['core', 'vendor'] as const;

export function staticFile(body: Buffer, name: string): StaticFile {
  const ext = name.slice(name.lastIndexOf('.'));
  const contentType = CONTENT_TYPES[ext];
  if (!contentType) throw new Error(`no content type for ${name}`);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, contentType, etag };
}

/** The root of the installed @novnc/novnc package (its `exports` is core/rfb.js). */
export function noVncRoot(): string {
  return dirname(dirname(fileURLToPath(import.meta.resolve('@novnc/novnc'))));
}

/**
 * Every `.js` file below noVNC's core/ and vendor/, keyed by its path from the package root with
 * forward slashes (`core/rfb.js`, `vendor/pako/lib/zlib/inflate.js`). Symbolic links are skipped.
 */
export async function loadNoVnc(root = noVncRoot()): Promise<StaticFiles> {
  const files = new Map<string, StaticFile>();
  for (const dir of NOVNC_DIRS) {
    const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
      const file = join(entry.parentPath, entry.name);
      const key = relative(root, file).split(sep).join('/');
      files.set(key, staticFile(await readFile(file), entry.name));
    }
  }
  if (!files.has('core/rfb.js')) throw new Error(`noVNC's core/rfb.js is missing under ${root}`);
  return files;
}

const PAGE_DIR = join(import.meta.dirname, '..', 'web', 'viewer', 'page');
/** The page's own files, by the name they are served under. */
export const PAGE_ASSETS = ['viewer.js', 'viewer.css'] as const;

export async function loadPage(): Promise<{ html: StaticFile; assets: StaticFiles }> {
  const html = staticFile(await readFile(join(PAGE_DIR, 'index.html')), 'index.html');
  const assets = new Map<string, StaticFile>();
  for (const name of PAGE_ASSETS) assets.set(name, staticFile(await readFile(join(PAGE_DIR, name)), name));
  return { html, assets };
}
