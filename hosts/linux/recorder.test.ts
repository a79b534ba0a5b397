// A recorder that cannot start is refused at once with ffmpeg's own reason, and leaves nothing behind:
// no recording listed, no record or video in the recordings dir.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Recorder } from './recorder.ts';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'sandbay-recorder-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

it('refuses a recording of a display that does not exist with what ffmpeg said, and keeps nothing', async () => {
  // Xvfb (-displayfd) takes the lowest free display, nowhere near :9999; and the cookie file is missing.
  const recorder = new Recorder(() => ({
    display: ':9999',
    xauthority: join(dataDir, 'no-cookie'),
    width: 640,
    height: 400,
    dataDir,
  }));
  const started = Date.now();
  const err = await recorder.start('never').catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'command_failed' });
  expect((err as Error).message).toMatch(/^recording: .*(9999|display)/i);
  // Refused when ffmpeg exits, not at the start deadline.
  expect(Date.now() - started).toBeLessThan(30_000);
  expect(await recorder.list()).toEqual([]);
  expect(readdirSync(join(dataDir, 'recordings'))).toEqual([]);
});
