// Attack: filling the service's disk with snapshots, recordings and uploads. Below the free-space
// floor of the data directory those writes are refused with 507 `insufficient_storage` before any
// body is read or any resource written; reads keep working. The floor is configured above the free
// space this machine really has (nothing is filled to test it).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freeBytes } from '../../api/storage-guard.ts';
import {
  resourceCounts,
  seedAccount,
  startApiStack,
  tempDir,
  type ApiStack,
  type TempDir,
} from '../api-harness.ts';
import { errorOf, httpRequest } from './http-client.ts';

let s: ApiStack;
let dataDir: TempDir;
let url: string;
let floor = 0;

beforeAll(async () => {
  dataDir = await tempDir('sandbay-adv-disk-');
  // A floor that moves: above the real free space while the attack runs, then back to zero.
  const guard = { dir: dataDir.dir, minFreeBytes: 0 };
  s = await startApiStack([{ name: 'mini-1' }], { storageGuard: guard });
  Object.defineProperty(guard, 'minFreeBytes', { get: () => floor });
  url = await s.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await s?.cleanup();
  await dataDir?.cleanup();
});

it('refuses snapshots, recordings and uploads below the floor, and only those', async () => {
  const accountKey = await seedAccount(s.f.store, 'filler', 100_000_000);
  const { key } = await s.reserve(accountKey);
  const auth = { authorization: `Bearer ${key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const created = await httpRequest(`${url}/v1/sandboxes`, { method: 'POST', headers: json, body: '{}' });
  expect(created.status).toBe(201);
  const id = (JSON.parse(created.body) as { sandbox_id: string }).sandbox_id;

  floor = (await freeBytes(dataDir.dir)) + 2 ** 40;
  const before = await resourceCounts(s.f.store);
  const writes = [
    { method: 'POST', path: `/v1/sandboxes/${id}/snapshots`, headers: json, body: '{"name":"fill"}' },
    { method: 'POST', path: `/v1/sandboxes/${id}/recording/start`, headers: json, body: '{}' },
    {
      method: 'PUT',
      path: `/v1/sandboxes/${id}/files?path=/tmp/fill.bin`,
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: 'x'.repeat(64 * 1024),
    },
    {
      method: 'PUT',
      path: `/v1/sandboxes/${id}/files/archive?path=/tmp`,
      headers: { ...auth, 'content-type': 'application/gzip' },
      body: 'not even a tarball',
    },
  ];
  for (const w of writes) {
    const r = await httpRequest(`${url}${w.path}`, { method: w.method, headers: w.headers, body: w.body });
    expect([r.status, errorOf(r)], w.path).toEqual([507, 'insufficient_storage']);
    expect(JSON.parse(r.body).message).toContain(`${floor}-byte floor`);
  }
  expect(await resourceCounts(s.f.store)).toEqual(before);
  // Reads are not writes.
  expect((await httpRequest(`${url}/v1/snapshots`, { headers: auth })).status).toBe(200);
  expect((await httpRequest(`${url}/v1/sandboxes/${id}/recordings`, { headers: auth })).status).toBe(200);
  // An unauthenticated caller learns nothing about the disk: 401 first.
  const anon = await httpRequest(`${url}${writes[0]!.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(anon.status).toBe(401);

  // Space back: the same snapshot goes through.
  floor = 0;
  const snap = await httpRequest(`${url}${writes[0]!.path}`, {
    method: 'POST',
    headers: json,
    body: writes[0]!.body,
  });
  expect(snap.status).toBe(201);
});
