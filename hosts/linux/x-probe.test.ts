// The boot's X probe against a real Xvfb that stops answering for a while (SIGSTOP, as a starved X
// server on a loaded Mac): the request that timed out is answered late, and that late answer must
// not be read as the answer to the next request.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestXvfb, type TestXvfb } from '../../test/support/test-xvfb.ts';
import { writeXauthority } from './display.ts';
import { XProbe } from './x-probe.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbay-x-probe-'));
let xvfb: TestXvfb;
let display: string;
let cookie: Buffer;
const auth = join(dir, 'Xauthority');

beforeAll(async () => {
  cookie = writeXauthority(auth, process.getuid!(), process.getgid!());
  // -noreset: without it the server resets when its last client leaves (one test's probe closing),
  // closing whatever connection the next test opened meanwhile (ECONNRESET in a full run).
  xvfb = await startTestXvfb(['-auth', auth, '-noreset', '-nolisten', 'tcp', '-screen', '0', '64x64x24']);
  display = xvfb.display;
});

afterAll(async () => {
  await xvfb.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('XProbe', () => {
  it('skips the late answer of a request that timed out: the next request gets its own answer', async () => {
    // The default timeout: the requests that must succeed (two right after SIGCONT) wait on another
    // process being scheduled, which a loaded machine may delay well past a few hundred ms.
    const x = await XProbe.connect(xvfb.socket, cookie);
    try {
      // Predefined atoms (X11 protocol, appendix B): WM_NAME is 39, WM_CLASS 67.
      expect(await x.internAtom('WM_NAME')).toBe(39);
      xvfb.proc.kill('SIGSTOP');
      await expect(x.internAtom('WM_CLASS')).rejects.toMatchObject({ code: 'timeout' });
      xvfb.proc.kill('SIGCONT');
      // The server now answers both: WM_CLASS's late 67 first, then this request's own 39.
      expect(await x.internAtom('WM_NAME')).toBe(39);
      expect(await x.viewable(x.root)).toBe(true);
      expect(await x.internAtom('WM_CLASS')).toBe(67);
    } finally {
      x.close();
    }
  });

  it('skips the events every client gets (MappingNotify when a keyboard mapping changes)', async () => {
    const x = await XProbe.connect(xvfb.socket, cookie);
    try {
      expect(await x.internAtom('WM_NAME')).toBe(39);
      // Typing a character the keymap lacks remaps a keycode: a MappingNotify to every client.
      execFileSync('xdotool', ['type', '\u2603'], {
        env: { ...process.env, DISPLAY: display, XAUTHORITY: auth },
      });
      expect(await x.internAtom('WM_CLASS')).toBe(67);
      expect(await x.internAtom('WM_NAME')).toBe(39);
    } finally {
      x.close();
    }
  });
});
