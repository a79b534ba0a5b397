// Paths of Cua's file commands, as the VM user's shell and the file routes read them: relative to
// the VM user's home, `~` and `~/…` meaning that home. A path reaches a shell only quoted; the short
// shell steps have a deadline of their own, and a file read in a range stops reading past it.
import type { Readable } from 'node:stream';
import type { ExecResult, Guest } from '../../../hosts/driver.ts';
import { ApiError } from '../../errors.ts';
import { CuaParamError } from './protocol.ts';

/**
 * Most bytes one answer carries: their base64 and the envelope stay under the 10 MiB message that
 * Cua's SDK accepts (its read_bytes reads a file over 5 MB in 1 MB parts by itself).
 */
export const MAX_READ_BYTES = 7 * 1024 * 1024;
/** A shell step (test, wc, find, mkdir, rm) is a question about one path: it answers at once. */
const STEP_TIMEOUT_MS = 30_000;

/** `value` as one single-quoted shell word. */
export function quoted(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * A path as one shell word meaning what the file routes mean by it. Refused like the file routes
 * refuse it: control characters (NUL would silently shorten it). A leading `-` is made `./-…` so
 * that no command reads it as an option.
 */
export function shellPath(path: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(path)) throw new CuaParamError('params/path contains control characters');
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${quoted(path.slice(2))}`;
  return quoted(path.startsWith('-') ? `./${path}` : path);
}

/** Runs a short step in the VM; an exit status outside `ok` is the step's first line of stderr. */
export async function shellStep(guest: Guest, script: string, ok: number[] = [0]): Promise<ExecResult> {
  const r = await guest.exec(script, { timeoutMs: STEP_TIMEOUT_MS });
  if (r.timed_out)
    throw new ApiError('guest_timeout', `no answer from the VM within ${STEP_TIMEOUT_MS / 1000} s`);
  if (!ok.includes(r.return_code)) {
    const line = r.stderr.trim().split('\n')[0] || `exit status ${r.return_code}`;
    throw new ApiError('invalid_argument', line);
  }
  return r;
}

/**
 * `length` bytes of the file from `offset` (null: to the end), through the file route's download.
 * The rest of the file is not read: the download stops once the range is in.
 */
export async function readRange(
  guest: Guest,
  path: string,
  offset: number,
  length: number | null,
): Promise<Buffer> {
  const want = length ?? Infinity;
  if (want > MAX_READ_BYTES && length !== null) throw tooLarge(path);
  const stream: Readable = await guest.getFile(path);
  const parts: Buffer[] = [];
  let skipped = 0;
  let kept = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let part = chunk;
      if (skipped < offset) {
        const skip = Math.min(offset - skipped, part.length);
        skipped += skip;
        part = part.subarray(skip);
      }
      if (part.length === 0) continue;
      part = part.subarray(0, want - kept);
      parts.push(part);
      kept += part.length;
      if (kept > MAX_READ_BYTES) throw tooLarge(path);
      if (kept >= want) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(parts, kept);
}

function tooLarge(path: string): CuaParamError {
  return new CuaParamError(
    `${path}: more than ${MAX_READ_BYTES} bytes, more than one answer carries: read it in parts with offset and length`,
  );
}
