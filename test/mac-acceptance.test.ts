// scripts/mac-acceptance.sh, end to end against an emulated Mac (issue 32 item 6): the script a first
// real Mac mini gets, run here as an operator runs it (its own process, the Mac's address and a key
// file), so that what it asks works before it meets a Mac. The table's answers are the emulation's:
// x11vnc's greeting behind the stand-in for Tart's server, Softnet between the VMs, and no `tart
// suspend` (the emulated `tart` has none, as it says).
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downAll, upMacs, type EmulatedMac } from './support/emulated-mac/macs.ts';
import { onMacOk } from './support/emulated-mac/operator-shell.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbay-mac-acceptance-'));
chmodSync(root, 0o755);
let mac: EmulatedMac;
let key: string;

beforeAll(async () => {
  const fleet = await upMacs(join(root, 'macs'), 1);
  mac = fleet.macs[0]!;
  key = join(root, 'id_ed25519');
  writeFileSync(key, fleet.privateKey, { mode: 0o600 });
}, 300_000);

afterAll(async () => {
  await downAll(join(root, 'macs'));
  rmSync(root, { recursive: true, force: true });
});

describe('the first-Mac acceptance script on an emulated Mac', () => {
  it(
    'answers every question in a table, and leaves the Mac as it found it',
    { timeout: 900_000 },
    async () => {
      const script = join(import.meta.dirname, '..', 'scripts', 'mac-acceptance.sh');
      const { stdout } = await promisify(execFile)(
        'sh',
        [script, mac.address, '--user', 'root', '--key', key, '--model', 'm4'],
        { timeout: 880_000, maxBuffer: 1 << 20 },
      );
      const rows = new Map(
        stdout
          .trim()
          .split('\n')
          .slice(2)
          .map((line) => {
            const [, check, answer] = /^\| (.*?) \| (.*) \|$/.exec(line) ?? [];
            return [check ?? line, answer ?? ''] as const;
          }),
      );
      const row = (start: string) => [...rows].find(([k]) => k.startsWith(start))?.[1];
      expect(stdout.split('\n')[0]).toBe(`| Check | ${mac.address} |`);
      expect([...rows.values()].filter((v) => v.startsWith('error:'))).toEqual([]);
      expect(row('Mac')).toMatch(/cores, \d+ GiB; tart 2\.30\.0/);
      expect(row('RFB version')).toMatch(/^RFB 003\.00\d; security types 2\b/);
      expect(row('VNC listen address')).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(row('Encodings')).toMatch(/^ZRLE; 1280x800; cursor shape sent$/);
      expect(row('SetPixelFormat')).toBe('yes: drew 224,64,16, read 224,64,16');
      expect(row('Two VNC clients')).toBe('both answered (1280x800, 1280x800); first still open: true');
      expect(row('Wheel scrolling')).toBe('the view moved');
      expect(row('Shift and Command')).toBe('typed exactly; cmd+v pasted');
      // Softnet: nothing from a reaches b; b offers the Mac no password login.
      expect(row('Hostile tenant: from VM a')).toMatch(/^22: closed \(.+\), 5900: closed \(.+\)$/);
      expect(row("Hostile tenant: b's SSH")).toBe('Permission denied (publickey).');
      expect(row('Hostile tenant: processes')).toMatch(/^\d+ processes in a$/);
      expect(row('Snapshot round trip')).toMatch(/fsck exit 0; marker restored$/);
      expect(row('tart suspend')).toBe(
        'suspended and resumed; after the resume the RFB session (1280x800) took a click and a key: true',
      );
      // Every VM it made is gone: only the images are left.
      expect(await onMacOk(mac, 'ls "$TART_HOME/vms"')).toBe('base-macos-26\nbase-macos-26-whole\n');
    },
  );
});
