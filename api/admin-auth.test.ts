import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKey } from '../crds/index.ts';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.ts';
import { bearerToken, bootstrapAdminKey, findValidKey } from './admin-auth.ts';
import { apiKeyResource, generateKey, KEY_PATTERN } from './keys.ts';

let dir: string;
let store: SqliteStore;
const logged: string[] = [];
const log = {
  info: (obj: object, msg: string) => void logged.push(JSON.stringify(obj) + msg),
  warn: (obj: object, msg: string) => void logged.push(JSON.stringify(obj) + msg),
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbay-admin-auth-'));
  store = await openSqliteStore({ file: join(dir, 'store.sqlite') });
  logged.length = 0;
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('generateKey', () => {
  it('makes sbk_ keys of 32 base62 characters, named by their hash', () => {
    const key = generateKey();
    expect(key.plaintext).toMatch(KEY_PATTERN);
    expect(key.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(key.name).toBe(`k-${key.sha256.slice(0, 40)}`);
    expect(key.prefix).toBe(key.plaintext.slice(0, 12));
    expect(generateKey().plaintext).not.toBe(key.plaintext);
  });
});

describe('bearerToken', () => {
  it('reads the token of a Bearer header only', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer  abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('findValidKey', () => {
  it('accepts a live admin key and refuses other kinds, revoked and expired keys', async () => {
    const admin = generateKey();
    await store.create(apiKeyResource(admin, { kind: 'admin' }));
    expect((await findValidKey(store, admin.plaintext, 'admin'))?.metadata.name).toBe(admin.name);
    expect(await findValidKey(store, admin.plaintext, 'account')).toBeUndefined();
    expect(await findValidKey(store, `${admin.plaintext}x`, 'admin')).toBeUndefined();

    const expiring = generateKey();
    await store.create(apiKeyResource(expiring, { kind: 'admin', expiresAt: '2030-01-01T00:00:00Z' }));
    expect(
      await findValidKey(store, expiring.plaintext, 'admin', new Date('2029-12-31T00:00:00Z')),
    ).toBeDefined();
    expect(
      await findValidKey(store, expiring.plaintext, 'admin', new Date('2030-01-02T00:00:00Z')),
    ).toBeUndefined();

    await store.patch({ kind: 'ApiKey', name: admin.name }, { spec: { revoked: true } });
    expect(await findValidKey(store, admin.plaintext, 'admin')).toBeUndefined();
  });
});

describe('bootstrapAdminKey', () => {
  it('on first start writes the key to a 0600 file, stores only its hash, and never logs it', async () => {
    const file = join(dir, 'admin.key');
    await bootstrapAdminKey(store, file, log);
    const plaintext = (await readFile(file, 'utf8')).trim();
    expect(plaintext).toMatch(KEY_PATTERN);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const { items } = await store.list<ApiKey>('ApiKey');
    expect(items).toHaveLength(1);
    expect(items[0]?.spec.kind).toBe('admin');
    expect(JSON.stringify(items)).not.toContain(plaintext);
    expect(await findValidKey(store, plaintext, 'admin')).toBeDefined();
    expect(logged.join('\n')).toContain(file);
    expect(logged.join('\n')).not.toContain(plaintext);
  });

  it('changes nothing on later starts', async () => {
    const file = join(dir, 'admin.key');
    await bootstrapAdminKey(store, file, log);
    const first = await readFile(file, 'utf8');
    await bootstrapAdminKey(store, file, log);
    expect(await readFile(file, 'utf8')).toBe(first);
    expect((await store.list('ApiKey')).items).toHaveLength(1);
  });

  it('registers the key of an existing key file when the store lacks it', async () => {
    const file = join(dir, 'admin.key');
    const key = generateKey();
    await writeFile(file, `${key.plaintext}\n`, { mode: 0o600 });
    await bootstrapAdminKey(store, file, log);
    expect(await findValidKey(store, key.plaintext, 'admin')).toBeDefined();
  });
});
