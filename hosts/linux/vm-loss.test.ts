// The guest half when its VM goes away under it (deleted, its desktop or SSH connection killed) or is
// not the VM it claims to be: every call and stream fails with a DriverError the caller can handle,
// nothing is left unhandled to crash the server, and the VM works again once it is back.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import sharp from 'sharp';
import { Client } from 'ssh2';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DriverError } from '../driver.ts';
import { LinuxGuest } from './guest.ts';
import { createLinuxDriver, type LinuxDriver, type LinuxHost } from './index.ts';
import { generateSshKey } from './sshd.ts';
import { vmRuntime } from './vm-runtime.ts';
import { KILL_OWN_CONNECTION } from '../../test/support/hostile-probes.ts';
import { waitFor } from '../../test/support/wait.ts';

let dataDir: string;
let driver: LinuxDriver;
let host: LinuxHost;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sbgt-loss-'));
  driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 1 });
  host = driver.host({ name: 'loss-test', address: '127.0.0.1', model: 'm4' });
  await host.createVm({ name: 'v', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
  await host.startVm('v');
});

afterAll(async () => {
  await driver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

// Whatever reaches the process's last-resort handlers during a test: each would crash the server.
let unhandled: unknown[] = [];
const record = (e: unknown): void => {
  unhandled.push(e);
};
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', record);
  process.on('uncaughtException', record);
});
afterEach(() => {
  process.off('unhandledRejection', record);
  process.off('uncaughtException', record);
});

function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>) {
  return waitFor(probe, what);
}

/** Settles with what `p` settles with, or fails the test if it has not within 10 s. */
function within<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after 10 s`)), 10_000);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** The error the stream fails with; rejects if it ends without one. */
function failure(stream: Readable): Promise<unknown> {
  return new Promise((resolve, reject) => {
    stream.once('error', resolve);
    stream.once('end', () => reject(new Error('the stream ended without an error')));
  });
}

/** One turn of the event loop, for errors emitted in the ticks after a failure. */
const nextTurn = () => new Promise((r) => setImmediate(r));

describe('a guest whose VM goes away', () => {
  it('pins the VM sshd host key, hands it out, and refuses a server with another key', async () => {
    const guest = host.guest('v');
    const { hostKey, host: ip, port } = await guest.ssh();
    expect(hostKey).toMatch(/^ssh-ed25519 [A-Za-z0-9+/=]+/);
    // The key the VM's sshd presents is the one handed out.
    const presented = await new Promise<Buffer>((resolve, reject) => {
      const c = new Client();
      c.on('error', reject);
      c.connect({
        host: ip,
        port,
        username: 'nobody',
        hostVerifier: (key: Buffer) => {
          resolve(key);
          c.end();
          return false;
        },
      });
    });
    expect(presented.toString('base64')).toBe(hostKey?.split(' ')[1]);
    expect((await guest.exec('echo pinned')).stdout).toBe('pinned\n');

    const { record: r, paths } = host.describe('v');
    const real = vmRuntime(
      r,
      paths,
      undefined,
      { width: 1280, height: 800 },
      {
        touch: () => undefined,
        lastActivity: () => undefined,
      },
    );
    const impostor = new LinuxGuest({
      ...real,
      ssh: { ...real.ssh, hostKey: generateSshKey('impostor').publicKey },
    });
    try {
      const refused = await impostor.exec('touch reached').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DriverError);
      expect(refused).toMatchObject({
        code: 'unreachable',
        message: expect.stringMatching(
          /host key verification failed: the server presented SHA256:\S+, the VM's key is SHA256:/,
        ),
      });
      await expect(impostor.getFile('big.bin')).rejects.toMatchObject({ code: 'unreachable' });
      expect((await guest.exec('test -e reached; echo $?')).stdout).toBe('1\n');
    } finally {
      await impostor.close();
    }
    await nextTurn();
    expect(unhandled).toEqual([]);
  });

  it('fails a download with unreachable when the SSH connection resets, and the next call reconnects', async () => {
    const guest = host.guest('v');
    await guest.exec('truncate -s 256M big.bin');
    // A slow client: one chunk read, then nothing.
    const paused = await guest.getFile('big.bin');
    const failed = failure(paused);
    await new Promise((r) => paused.once('readable', r));
    expect(paused.read()).not.toBeNull();
    // The sshd process of this very connection.
    await expect(guest.exec(`${KILL_OWN_CONNECTION}; sleep 5`)).rejects.toMatchObject({
      code: 'unreachable',
    });
    const err = await within('the paused download', failed);
    expect(err).toBeInstanceOf(DriverError);
    expect(err).toMatchObject({ code: 'unreachable' });
    expect((await guest.exec('echo back')).stdout).toBe('back\n');
    await nextTurn();
    expect(unhandled).toEqual([]);
  });

  it('fails screenshots with DriverError when its Xvfb is killed, and screenshots again after a restart', async () => {
    const guest = host.guest('v');
    let shots = 0;
    const errors: unknown[] = [];
    const loop = (async () => {
      while (errors.length < 3) {
        try {
          await guest.screenshot();
          shots++;
        } catch (e) {
          errors.push(e);
        }
      }
    })();
    await until('screenshots flowing', () => shots >= 2);
    process.kill(host.describe('v').procs.xvfb as number, 'SIGKILL');
    await within('the screenshot loop', loop);
    for (const e of errors) expect(e).toBeInstanceOf(DriverError);
    // A dead desktop process takes its VM down, as a crashed VM would be.
    await until('the VM stopped', async () => (await host.listVms())[0]?.state === 'stopped');
    await host.stopVm('v');
    await host.startVm('v');
    const png = await host.guest('v').screenshot();
    expect((await sharp(png).metadata()).width).toBe(1280);
    await nextTurn();
    expect(unhandled).toEqual([]);
  });

  it('fails open downloads and uploads with unreachable when the VM is deleted mid-transfer', async () => {
    const guest = host.guest('v');
    await guest.exec('truncate -s 256M big.bin');
    // One download read as fast as it comes (a request is in flight when the VM goes), one paused.
    const flowing = await guest.getFile('big.bin');
    const flowingFailed = failure(flowing);
    let received = 0;
    flowing.on('data', (chunk: Buffer) => (received += chunk.length));
    const paused = await guest.getFile('big.bin');
    const pausedFailed = failure(paused);
    await new Promise((r) => paused.once('readable', r));
    // An upload whose client has sent its first MiB and then nothing.
    const body = new PassThrough();
    body.write(Buffer.alloc(1024 * 1024, 7));
    const upload = guest.putFile('up.bin', body).catch((e: unknown) => e);
    await until('the first MiB uploaded', () => body.readableLength === 0 && body.writableLength === 0);
    await until('the download under way', () => received >= 1024 * 1024);

    await host.deleteVm('v');
    const results = await within('the transfers', Promise.all([flowingFailed, pausedFailed, upload]));
    for (const err of results) {
      expect(err).toBeInstanceOf(DriverError);
      expect(err).toMatchObject({ code: 'unreachable' });
    }
    expect(received).toBeLessThan(256 * 1024 * 1024);
    await nextTurn();
    expect(unhandled).toEqual([]);
  });
});
