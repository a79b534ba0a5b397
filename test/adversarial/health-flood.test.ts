// Attack: flooding the public /health probe to make the store scan its tables. /health is answered
// from the API's informer caches: no store list per probe, and the counts still match the store.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startApiStack, type ApiStack } from '../api-harness.ts';
import { httpRequest } from './http-client.ts';

let s: ApiStack;
let url: string;

beforeAll(async () => {
  s = await startApiStack([{ name: 'mini-1' }, { name: 'mini-2' }]);
  url = await s.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await s?.cleanup();
});

it('answers a flood of /health probes without listing the store', async () => {
  const lists = vi.spyOn(s.f.store, 'list');
  const probes = await Promise.all(Array.from({ length: 50 }, () => httpRequest(`${url}/health`)));
  expect(probes.map((p) => p.status)).toEqual(probes.map(() => 200));
  const listed = lists.mock.calls.map(([kind]) => kind);
  expect(listed.filter((k) => k === 'Mini' || k === 'VM' || k === 'Sandbox')).toEqual([]);
  lists.mockRestore();
  const health = JSON.parse(probes[0]!.body) as { minis: { total: number }; vms: { total: number } };
  expect(health.minis.total).toBe((await s.f.store.list('Mini')).items.length);
  expect(health.vms.total).toBe((await s.f.store.list('VM')).items.length);
});
