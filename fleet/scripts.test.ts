// The preparation scripts, run for real over SSH: a throwaway sshd on 127.0.0.1 (its own host key, root
// admitted with a test key), the exact command lines the program sends, and on PATH fake `brew`, `tart`,
// `defaults`, `security` and `sysctl` that answer like the Mac's tools for what the scripts call and
// record every call. (They stand in for the Mac's own tools, not for anything sandbay drives.)
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateSshKey, SSHD } from '../hosts/linux/sshd.ts';
import { greets } from '../hosts/linux/probe.ts';
import { waitFor } from '../test/support/wait.ts';
import { scriptCommand, type ScriptName } from './scripts.ts';
import { sshRun, type SshRun } from './ssh-run.ts';

let dir: string;
let sshd: ChildProcess;
let port: number;
let clientKey: string;
/** The fake Mac: its tools, their state and the log of their calls. */
let mac: { bin: string; brewBin: string; state: string; log: string };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = s.address() as { port: number };
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

const CIRRUS = 'ghcr.io/cirruslabs/macos-tahoe-base:latest';

/** The fake tools. `tart` appears in brewBin only once `brew install` has put it there. */
function fakeTools(state: string, log: string, brewBin: string): Record<string, string> {
  const record = `printf '%s\\n' "$(basename "$0") $*" >>'${log}'`;
  const tart = `#!/bin/sh
${record}
state='${state}'
case "$1" in
  --version) cat "$state/tart-version" ;;
  list)
    printf '[\\n'
    running=$(cat "$state/running" 2>/dev/null || echo 0)
    while IFS= read -r name; do
      r=false; if [ "$running" -gt 0 ]; then r=true; running=$((running - 1)); fi
      printf '  {\\n    "Source" : "OCI",\\n    "Name" : "%s",\\n    "Running" : %s\\n  },\\n' "$name" "$r"
    done <"$state/images"
    printf ']\\n' ;;
  pull) printf '%s\\n' "$2" >>"$state/images" ;;
  clone)
    printf '%s\\n' "$3" >>"$state/images"
    cat "$state/source-disk" 2>/dev/null >"$state/disk-$3" || echo 50 >"$state/disk-$3" ;;
  get) printf '{\\n  "CPU" : 4,\\n  "Disk" : %s,\\n  "Running" : false\\n}\\n' "$(cat "$state/disk-$2")" ;;
  set) [ "$3" = --disk-size ] && echo "$4" >"$state/disk-$2" ;;
  delete) grep -v -x -F "$2" "$state/images" >"$state/images.new"; mv "$state/images.new" "$state/images" ;;
  *) echo "Error: unexpected tart $*" >&2; exit 1 ;;
esac
`;
  return {
    tart,
    brew: `#!/bin/sh
${record}
[ "$1 $2" = "install cirruslabs/cli/tart" ] || { echo "unexpected brew $*" >&2; exit 1; }
cp '${state}/tart-binary' '${brewBin}/tart'
`,
    defaults: `#!/bin/sh
${record}
[ -s '${state}/auto-login' ] || { echo "The domain/default pair does not exist" >&2; exit 1; }
cat '${state}/auto-login'
`,
    security: `#!/bin/sh
${record}
[ -e '${state}/keychain-unlocked' ] || { echo "security: SecKeychainCopySettings: The user name or passphrase you entered is not correct." >&2; exit 36; }
echo "Keychain \\"$2\\" no-timeout"
`,
    sysctl: `#!/bin/sh
${record}
echo 10
`,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbay-fleet-sshd-'));
  const hostKey = generateSshKey('host');
  const login = generateSshKey('fleet-test');
  clientKey = login.privateKey;
  await writeFile(join(dir, 'host_key'), hostKey.privateKey, { mode: 0o600 });
  await writeFile(join(dir, 'login_keys'), `${login.publicKey}\n`, { mode: 0o600 });
  port = await freePort();
  await writeFile(
    join(dir, 'sshd_config'),
    [
      `ListenAddress 127.0.0.1:${port}`,
      `HostKey ${join(dir, 'host_key')}`,
      'PidFile none',
      'AllowUsers root',
      `AuthorizedKeysFile ${join(dir, 'login_keys')}`,
      'AuthenticationMethods publickey',
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'UseDNS no',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  sshd = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  sshd.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  await waitFor(async () => {
    if (sshd.exitCode !== null) throw new Error(`sshd exited: ${stderr}`);
    return greets('127.0.0.1', port, 'SSH-2.0-');
  }, 'the test sshd');
});

afterAll(async () => {
  if (sshd && sshd.exitCode === null) {
    const exited = new Promise((resolve) => sshd.once('exit', resolve));
    sshd.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

/** A fresh Mac: Homebrew, no Tart yet, no images, nothing running, auto-login on, keychain unlocked. */
beforeEach(async () => {
  const root = await mkdtemp(join(dir, 'mac-'));
  mac = {
    bin: join(root, 'bin'),
    brewBin: join(root, 'brew-bin'),
    state: join(root, 'state'),
    log: join(root, 'calls'),
  };
  await Promise.all([mkdir(mac.bin), mkdir(mac.brewBin), mkdir(mac.state)]);
  const tools = fakeTools(mac.state, mac.log, mac.brewBin);
  for (const [name, text] of Object.entries(tools)) {
    const file = name === 'tart' ? join(mac.state, 'tart-binary') : join(mac.bin, name);
    await writeFile(file, text);
    await chmod(file, 0o755);
  }
  await writeFile(join(mac.state, 'tart-version'), '2.30.0\n');
  await writeFile(join(mac.state, 'images'), '');
  await writeFile(join(mac.state, 'auto-login'), 'admin\n');
  await writeFile(join(mac.state, 'keychain-unlocked'), '');
  await writeFile(mac.log, '');
});

/** Runs a script as the program does: its command line, over SSH, with the fake Mac's PATH first. */
function runScript(name: ScriptName, vars: Record<string, string>): Promise<SshRun> {
  const line = scriptCommand(name, { MAC_NAME: 'mini-1', ...vars }, `${mac.bin}:${mac.brewBin}`);
  return sshRun({ host: '127.0.0.1', port, username: 'root', privateKey: clientKey }, line);
}

const calls = async () => (await readFile(mac.log, 'utf8')).split('\n').filter(Boolean);

describe('preparation scripts over SSH', () => {
  it('install-tart installs the pinned Tart with Homebrew once; a second run changes nothing', async () => {
    const first = await runScript('install-tart', { TART_VERSION: '2.30.0' });
    expect(first).toMatchObject({ code: 0, stdout: 'installing Tart 2.30.0\ntart 2.30.0\n' });
    expect(await calls()).toEqual(['brew install cirruslabs/cli/tart', 'tart --version']);
    const second = await runScript('install-tart', { TART_VERSION: '2.30.0' });
    expect(second).toMatchObject({ code: 0, stdout: 'tart 2.30.0\n' });
    expect(await calls()).toEqual(['brew install cirruslabs/cli/tart', 'tart --version', 'tart --version']);
  });

  it('install-tart refuses a Mac whose Tart is another version, naming the Mac and the fix', async () => {
    await runScript('install-tart', { TART_VERSION: '2.30.0' });
    const run = await runScript('install-tart', { TART_VERSION: '2.31.0' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'sandbay-fleet: Mac "mini-1": runs Tart 2.30.0, the fleet pins 2.31.0: run `brew upgrade cirruslabs/cli/tart` on it (when no VM runs), or set tartVersion to 2.30.0\n',
    );
    expect((await calls()).filter((c) => c.startsWith('brew'))).toEqual(['brew install cirruslabs/cli/tart']);
  });

  it('pull-images pulls only what the Mac lacks', async () => {
    await runScript('install-tart', { TART_VERSION: '2.30.0' });
    await writeFile(join(mac.state, 'images'), 'ghcr.io/cirruslabs/macos-tahoe-base:latest\n');
    const images = 'ghcr.io/cirruslabs/macos-tahoe-base:latest ghcr.io/cirruslabs/macos-tahoe-vanilla:latest';
    const first = await runScript('pull-images', { IMAGES: images });
    expect(first).toMatchObject({
      code: 0,
      stdout:
        'present ghcr.io/cirruslabs/macos-tahoe-base:latest\npulling ghcr.io/cirruslabs/macos-tahoe-vanilla:latest\n',
    });
    const second = await runScript('pull-images', { IMAGES: images });
    expect(second.stdout).not.toContain('pulling');
    expect((await calls()).filter((c) => c.startsWith('tart pull'))).toEqual([
      'tart pull ghcr.io/cirruslabs/macos-tahoe-vanilla:latest',
    ]);
  });

  it('pull-images makes the local images from the first base image, each grown to its disk size, once', async () => {
    await runScript('install-tart', { TART_VERSION: '2.30.0' });
    await writeFile(join(mac.state, 'images'), `${CIRRUS}\n`);
    const vars = { IMAGES: CIRRUS, NAMED: `base-macos-26=${CIRRUS}=50 base-macos-26-whole=${CIRRUS}=100` };
    expect(await runScript('pull-images', vars)).toMatchObject({
      code: 0,
      stdout: `present ${CIRRUS}\nmaking base-macos-26 from ${CIRRUS}, disk 50 GB\nmaking base-macos-26-whole from ${CIRRUS}, disk 100 GB\n`,
    });
    expect(await runScript('pull-images', vars)).toMatchObject({
      code: 0,
      stdout: `present ${CIRRUS}\npresent base-macos-26\npresent base-macos-26-whole\n`,
    });
    expect((await calls()).filter((c) => /^tart (clone|set|pull)/.test(c))).toEqual([
      `tart clone ${CIRRUS} base-macos-26`,
      `tart clone ${CIRRUS} base-macos-26-whole`,
      'tart set base-macos-26-whole --disk-size 100',
    ]);
  });

  it('pull-images refuses a base image whose disk is bigger than a model gives, and leaves no image', async () => {
    await runScript('install-tart', { TART_VERSION: '2.30.0' });
    await writeFile(join(mac.state, 'images'), `${CIRRUS}\n`);
    await writeFile(join(mac.state, 'source-disk'), '60\n');
    const run = await runScript('pull-images', { IMAGES: CIRRUS, NAMED: `base-macos-26=${CIRRUS}=50` });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `sandbay-fleet: Mac "mini-1": ${CIRRUS} has a 60 GB disk, more than the 50 GB sandbay's models give base-macos-26 (Tart only grows a disk): use a smaller base image\n`,
    );
    expect(await readFile(join(mac.state, 'images'), 'utf8')).toBe(`${CIRRUS}\n`);
  });

  it('check-session fails on auto-login off and on a locked keychain, each with its fix', async () => {
    expect(await runScript('check-session', {})).toMatchObject({
      code: 0,
      stdout: 'auto-login admin, keychain unlocked\n',
    });
    await rm(join(mac.state, 'keychain-unlocked'));
    const locked = await runScript('check-session', {});
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(
      /^sandbay-fleet: Mac "mini-1": the login keychain \(.*login\.keychain-db\) is locked: log in once, or run `security unlock-keychain` over SSH\n$/,
    );
    await writeFile(join(mac.state, 'auto-login'), '');
    const off = await runScript('check-session', {});
    expect(off.stderr).toMatch(/^sandbay-fleet: Mac "mini-1": auto-login is off: turn it on/);
  });

  it('install-key authorizes the control plane key once', async () => {
    const file = join(mac.state, 'ssh', 'authorized_keys');
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHh0ZXN0 control-plane';
    const vars = { CONTROL_PLANE_KEY: key, AUTHORIZED_KEYS: file };
    expect((await runScript('install-key', vars)).stdout).toBe('control plane key added\n');
    expect((await runScript('install-key', vars)).stdout).toBe('control plane key present\n');
    expect(await readFile(file, 'utf8')).toBe(`${key}\n`);
  });

  it('check-licence refuses a Mac already running more than two macOS VMs', async () => {
    await runScript('install-tart', { TART_VERSION: '2.30.0' });
    await writeFile(join(mac.state, 'images'), 'a\nb\nc\n');
    await writeFile(join(mac.state, 'running'), '2');
    expect(await runScript('check-licence', {})).toMatchObject({
      code: 0,
      stdout: 'running VMs: 2 of 2, host cores: 10\n',
    });
    await writeFile(join(mac.state, 'running'), '3');
    const over = await runScript('check-licence', {});
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(
      /^sandbay-fleet: Mac "mini-1": 3 macOS VMs are running; Apple's licence allows 2 at once/,
    );
  });

  it('passes hostile values as data: quotes and command substitutions are never run', async () => {
    const marker = join(mac.state, 'pwned');
    const name = `it's $(touch ${marker}) \`touch ${marker}\``;
    const run = await runScript('check-session', { MAC_NAME: name });
    expect(run.code).toBe(0);
    await writeFile(join(mac.state, 'auto-login'), '');
    const failed = await runScript('check-session', { MAC_NAME: name });
    expect(failed.stderr).toContain(`Mac "${name}"`);
    await runScript('install-tart', { TART_VERSION: '2.30.0' });
    await runScript('pull-images', { IMAGES: `* $(touch ${marker})` });
    await expect(readFile(marker)).rejects.toThrow(/ENOENT/);
  });
});
