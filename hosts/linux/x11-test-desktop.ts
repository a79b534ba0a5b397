// A throwaway real Linux desktop for the guest tests and bench, independent of the lifecycle half:
// a Unix user with a home in /tmp, Xvfb (own cookie, -noreset, -displayfd), a session bus, openbox,
// and an sshd on 127.0.1.x with a fresh key. close() kills every process it started and every
// process of the throwaway user, by PID, deletes the user and removes the directories.
// Runs as root (it creates a user). Not used by the driver itself.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LinuxVmRuntime } from './vm-runtime.ts';
import { readCookie } from './x11-auth.ts';
import { X11Connection } from './x11-connection.ts';

const run = promisify(execFile);

export interface TestDesktop {
  vm: LinuxVmRuntime;
  /** Process ids of the fixture's own daemons (Xvfb, dbus, openbox, sshd). */
  pids: number[];
  close(): Promise<void>;
}

async function waitFor(what: string, check: () => Promise<boolean>, deadlineMs = 10_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

function sshBanner(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('SSH-'));
    });
    s.once('error', () => resolve(false));
  });
}

/** PIDs of every process whose real uid is `uid`. */
async function processesOf(uid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    const m = /^Uid:\s+(\d+)/m.exec(status);
    if (m && Number(m[1]) === uid) pids.push(Number(entry));
  }
  return pids;
}

export async function startTestDesktop(opts: { width?: number; height?: number } = {}): Promise<TestDesktop> {
  const width = opts.width ?? 1280;
  const height = opts.height ?? 800;
  const user = `sbgt${randomBytes(4).toString('hex')}`;
  const home = await mkdtemp('/tmp/sbgt-home-');
  const runtimeDir = await mkdtemp('/tmp/sbgt-run-');
  const dataDir = await mkdtemp('/tmp/sbgt-data-');
  const sshDir = await mkdtemp('/tmp/sbgt-ssh-');
  const children: ChildProcess[] = [];
  let uid = -1;

  const close = async (): Promise<void> => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => exited(c, 3000)));
    if (uid >= 0) {
      for (const pid of await processesOf(uid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await waitFor('user processes gone', async () => (await processesOf(uid)).length === 0, 5000).catch(
        () => {},
      );
      await run('userdel', [user]).catch(() => {});
    }
    await Promise.all(
      [home, runtimeDir, dataDir, sshDir].map((d) => rm(d, { recursive: true, force: true })),
    );
  };

  try {
    await run('useradd', ['-M', '-d', home, '-s', '/bin/bash', '-p', '*', user]);
    uid = Number((await run('id', ['-u', user])).stdout.trim());
    const gid = Number((await run('id', ['-g', user])).stdout.trim());
    for (const d of [home, runtimeDir]) {
      await chown(d, uid, gid);
      await chmod(d, 0o700);
    }
    const asUser = { uid, gid, cwd: home };
    const baseEnv = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: home,
      USER: user,
      XDG_RUNTIME_DIR: runtimeDir,
    };

    // Xvfb: any cookie in its -auth file is accepted; clients look theirs up by display number, so
    // the entry for :N is added once Xvfb has said which N it took.
    const cookie = randomBytes(16).toString('hex');
    const xauthority = join(home, '.Xauthority');
    await run('xauth', ['-f', xauthority, 'add', 'sandbay-placeholder/unix:0', 'MIT-MAGIC-COOKIE-1', cookie]);
    const xvfb = spawn(
      'Xvfb',
      [
        '-displayfd',
        '1',
        '-screen',
        '0',
        `${width}x${height}x24`,
        '-auth',
        xauthority,
        '-noreset',
        '-nolisten',
        'tcp',
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    children.push(xvfb);
    const displayNum = await new Promise<string>((resolve, reject) => {
      let out = '';
      xvfb.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      xvfb.once('exit', () => reject(new Error('Xvfb exited')));
    });
    const display = `:${displayNum}`;
    await run('xauth', ['-f', xauthority, 'add', display, 'MIT-MAGIC-COOKIE-1', cookie]);
    await chown(xauthority, uid, gid);

    const sessionEnv = {
      ...baseEnv,
      DISPLAY: display,
      XAUTHORITY: xauthority,
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${runtimeDir}/bus`,
    };
    const bus = spawn(
      'dbus-daemon',
      ['--session', `--address=unix:path=${runtimeDir}/bus`, '--nofork', '--nopidfile'],
      {
        ...asUser,
        env: baseEnv,
        stdio: 'ignore',
      },
    );
    children.push(bus);
    const openbox = spawn('openbox', [], { ...asUser, env: sessionEnv, stdio: 'ignore' });
    children.push(openbox);

    // sshd: fresh host and client keys, the client key authorized for the throwaway user only.
    const ip = `127.0.1.${200 + ((randomBytes(1)[0] as number) % 50)}`;
    const port = await freePort(ip);
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'host_key')]);
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'client_key')]);
    await chmod(sshDir, 0o755);
    await writeFile(join(sshDir, 'authorized_keys'), await readFile(join(sshDir, 'client_key.pub')), {
      mode: 0o644,
    });
    const config = [
      `ListenAddress ${ip}:${port}`,
      `HostKey ${join(sshDir, 'host_key')}`,
      'PidFile none',
      'UsePAM no',
      'StrictModes no',
      `AuthorizedKeysFile ${join(sshDir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      `AllowUsers ${user}`,
      'MaxSessions 64',
      'Subsystem sftp internal-sftp',
    ].join('\n');
    await writeFile(join(sshDir, 'sshd_config'), `${config}\n`);
    await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
    const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(sshDir, 'sshd_config')], {
      stdio: 'ignore',
    });
    children.push(sshd);

    await Promise.all([
      waitFor('sshd', () => sshBanner(ip, port)),
      waitFor('session bus', async () => (await readdir(runtimeDir)).includes('bus')),
      waitForWindowManager(display, xauthority),
    ]);

    let last: Date | undefined;
    const vm: LinuxVmRuntime = {
      name: user,
      user,
      uid,
      gid,
      home,
      ip,
      display,
      xauthority,
      // No VNC server in this fixture: the guest only passes these fields through.
      vnc: { host: ip, port: 5900 + Number(displayNum), password: 'not-served' },
      ssh: { host: ip, port, username: user, privateKey: await readFile(join(sshDir, 'client_key'), 'utf8') },
      runtimeDir,
      dataDir,
      width,
      height,
      touch: () => {
        last = new Date();
      },
      lastActivity: () => last,
    };
    return { vm, pids: children.map((c) => c.pid ?? -1), close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** openbox is up once it has set _NET_SUPPORTING_WM_CHECK on the root window. */
async function waitForWindowManager(display: string, xauthority: string): Promise<void> {
  const conn = await X11Connection.open(display, await readCookie(xauthority, display));
  try {
    const atom = await conn.atom('_NET_SUPPORTING_WM_CHECK');
    await waitFor('openbox', async () => {
      const p = await conn.request<{ data: Buffer }>('GetProperty', (r) =>
        conn.client.GetProperty(0, conn.root, atom, 0, 0, 1, r),
      );
      return p.data.length >= 4;
    });
  } finally {
    conn.close();
  }
}

function exited(child: ChildProcess, deadlineMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, deadlineMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
