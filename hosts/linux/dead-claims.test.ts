// A starting driver takes back the slots of dead drivers whose data dir is gone, but only slots of
// its own user prefix: the slot's user, cgroup and namespaces are named by the prefix, and a driver
// that sees another prefix's data dir as gone may only be looking from another mount namespace (a
// test's private /tmp), while that driver's crash is still waiting for its own prefix's reset.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createExclusive, currentOwner, SlotRegistry, type SlotClaim } from './claims.ts';
import { createLinuxDriver, type LinuxDriver } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbay-dead-claims-'));
let driver: LinuxDriver | undefined;

afterAll(async () => {
  await driver?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("sweeps a dead driver's slot of its own prefix whose data dir is gone, and no slot of another prefix", async () => {
  // A registry of its own: the machine's slots are not touched.
  const globalDir = join(dir, 'global');
  const slots = new SlotRegistry(globalDir);
  const dead = (slot: number, userPrefix: string): SlotClaim => ({
    ...currentOwner(),
    pidStart: 1, // not this process's start: its owner is gone
    slot,
    dataDir: join(dir, `gone-${slot}`),
    host: 'elsewhere',
    vm: 'x',
    mounts: [],
    userPrefix,
  });
  expect(createExclusive(slots.file(201), dead(201, 'sbdcown'))).toBe(true);
  expect(createExclusive(slots.file(202), dead(202, 'sbdcother'))).toBe(true);

  driver = createLinuxDriver({ dataDir: join(dir, 'data'), globalDir, userPrefix: 'sbdcown' });
  await driver.host({ name: 'dead-claims', address: '127.0.0.1', model: 'm4' }).listVms();

  expect(existsSync(slots.file(201))).toBe(false);
  expect(slots.read(202)).toEqual(dead(202, 'sbdcother'));
});
