// Attack: filling the service's storage with snapshots and recordings. Past the account's count or
// byte quota a capture or a recording start is refused with 403 `quota_exceeded` naming the limit,
// and nothing is written.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Snapshot } from '../../crds/index.ts';
import type { RecordingQuota, SnapshotQuota } from '../../api/services/quotas.ts';
import { seedAccount, startApiStack, type ApiStack } from '../api-harness.ts';
import { errorOf, httpRequest } from './http-client.ts';

let s: ApiStack;
let url: string;
const quota: SnapshotQuota = { maxCount: 2, maxBytes: 2 ** 50 };
const recordingQuota: RecordingQuota = { maxCount: 2, maxBytes: 2 ** 50 };

beforeAll(async () => {
  s = await startApiStack([{ name: 'mini-1' }, { name: 'mini-2' }], { snapshotQuota: quota, recordingQuota });
  url = await s.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await s?.cleanup();
});

it('refuses captures past the count and the byte quota, naming the limit', async () => {
  const accountKey = await seedAccount(s.f.store, 'hoarder', 100_000_000);
  const { key } = await s.reserve(accountKey);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await httpRequest(`${url}/v1/sandboxes`, { method: 'POST', headers, body: '{}' });
  expect(created.status).toBe(201);
  const id = (JSON.parse(created.body) as { sandbox_id: string }).sandbox_id;
  const capture = (name: string) =>
    httpRequest(`${url}/v1/sandboxes/${id}/snapshots`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name }),
    });
  const snapshots = async () => (await s.f.store.list<Snapshot>('Snapshot', { namespace: 'hoarder' })).items;

  expect((await capture('one')).status).toBe(201);
  expect((await capture('two')).status).toBe(201);
  const third = await capture('three');
  expect([third.status, errorOf(third)]).toEqual([403, 'quota_exceeded']);
  expect(JSON.parse(third.body).message).toContain('2 of 2 snapshots');
  expect(await snapshots()).toHaveLength(2);

  // Room in count, none in bytes: the artifacts already kept are over the byte limit.
  const kept = (await snapshots()).reduce((n, x) => n + (x.status?.artifact?.bytes ?? 0), 0);
  expect(kept).toBeGreaterThan(0);
  quota.maxCount = 100;
  quota.maxBytes = kept;
  const big = await capture('big');
  expect([big.status, errorOf(big)]).toEqual([403, 'quota_exceeded']);
  expect(JSON.parse(big.body).message).toContain(`${kept} of ${kept} bytes`);
  expect(await snapshots()).toHaveLength(2);
  // Under the byte limit again: the capture goes through.
  quota.maxBytes = kept + 1;
  expect((await capture('fits')).status).toBe(201);
});

it('refuses a recording start past the count quota of the account', async () => {
  const accountKey = await seedAccount(s.f.store, 'recorder', 100_000_000);
  const { key } = await s.reserve(accountKey);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await httpRequest(`${url}/v1/sandboxes`, { method: 'POST', headers, body: '{}' });
  expect(created.status).toBe(201);
  const id = (JSON.parse(created.body) as { sandbox_id: string }).sandbox_id;
  const call = (path: string, body: unknown) =>
    httpRequest(`${url}/v1/sandboxes/${id}/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  for (const name of ['one', 'two']) {
    const started = await call('recording/start', { name });
    expect(started.status).toBe(200);
    expect(
      (await call('recording/stop', { id: (JSON.parse(started.body) as { id: string }).id })).status,
    ).toBe(200);
  }
  const third = await call('recording/start', { name: 'three' });
  expect([third.status, errorOf(third)]).toEqual([403, 'quota_exceeded']);
  expect(JSON.parse(third.body).message).toContain('2 of 2 recordings');
  const list = await httpRequest(`${url}/v1/sandboxes/${id}/recordings`, { headers });
  expect((JSON.parse(list.body) as unknown[]).length).toBe(2);
});
