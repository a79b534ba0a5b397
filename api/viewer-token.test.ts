import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { API_VERSION, type Reservation, type Sandbox } from '../crds/index.ts';
import type { SqliteStore } from '../store/sqlite-store.ts';
import { CachedReads } from './services/reads.ts';
import { openStore, seedAccount, seedReservation, tempDir, type TempDir } from '../test/api-harness.ts';
import { ApiError } from './errors.ts';
import { VIEWER_TOKEN_TTL_MS, ViewerTokens, loadViewerSecret } from './viewer-token.ts';

const RES = '11111111-1111-4111-8111-111111111111';
const SB = `sb-${'a'.repeat(32)}`;
const NOW = Date.parse('2026-01-05T09:00:00Z');

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof ApiError ? err.code : String(err);
  }
}

describe('viewer tokens', () => {
  let tmp: TempDir;
  let store: SqliteStore;
  let reads: CachedReads;
  let sandbox: Sandbox;
  let reservation: Reservation;
  const tokens = new ViewerTokens(randomBytes(32));

  beforeAll(async () => {
    tmp = await tempDir();
    store = await openStore(tmp.dir);
    // Not started: every read goes to the store (the uncached path).
    reads = new CachedReads(store);
    await seedAccount(store, 'acme');
    reservation = await seedReservation(store, 'acme', RES, {
      phase: 'active',
      endAt: new Date(NOW + 30 * 60_000).toISOString(),
    });
    await store.create<Sandbox>({
      apiVersion: API_VERSION,
      kind: 'Sandbox',
      metadata: { name: SB, namespace: 'acme' },
      spec: { reservation: RES, ephemeral: false },
    });
    sandbox = await store.patch<Sandbox>(
      { kind: 'Sandbox', namespace: 'acme', name: SB },
      { status: { phase: 'running' } },
      { subresource: 'status' },
    );
  });
  afterAll(async () => {
    await store.close();
    await tmp.cleanup();
  });

  it('expires within an hour, or at end_at when earlier', () => {
    const early = tokens.mint(sandbox, reservation, NOW);
    expect(early.expiresAt.getTime()).toBe(NOW + 30 * 60_000);
    const longLived = {
      ...reservation,
      status: { ...reservation.status, endAt: new Date(NOW + 5 * VIEWER_TOKEN_TTL_MS).toISOString() },
    };
    expect(tokens.mint(sandbox, longLived, NOW).expiresAt.getTime()).toBe(NOW + VIEWER_TOKEN_TTL_MS);
  });

  it('carries the token in the vnc_url, never a key', () => {
    const t = tokens.mint(sandbox, reservation, NOW);
    expect(t.vncUrl).toBe(`/v1/sandboxes/${SB}/vnc?token=${t.token}`);
    expect(t.token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('grants the sandbox while it runs in an active reservation', async () => {
    const t = tokens.mint(sandbox, reservation, NOW);
    const grant = await tokens.verify(reads, t.token, SB, NOW + 1000);
    expect(grant.sandbox.metadata.name).toBe(SB);
  });

  it('refuses tampered, foreign, misdirected and expired tokens', async () => {
    const t = tokens.mint(sandbox, reservation, NOW);
    const [payload, sig] = t.token.split('.') as [string, string];
    const flipped = `${payload}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`;
    expect(await code(tokens.verify(reads, flipped, SB, NOW))).toBe('invalid_viewer_token');
    const other = new ViewerTokens(randomBytes(32)).mint(sandbox, reservation, NOW);
    expect(await code(tokens.verify(reads, other.token, SB, NOW))).toBe('invalid_viewer_token');
    expect(await code(tokens.verify(reads, t.token, `sb-${'b'.repeat(32)}`, NOW))).toBe(
      'invalid_viewer_token',
    );
    expect(await code(tokens.verify(reads, t.token, SB, t.expiresAt.getTime()))).toBe('invalid_viewer_token');
    expect(await code(tokens.verify(reads, undefined, SB, NOW))).toBe('invalid_viewer_token');
    expect(await code(tokens.verify(reads, 'garbage', SB, NOW))).toBe('invalid_viewer_token');
  });

  it('is checked against the reservation on every request (edits and expiry take effect at once)', async () => {
    const t = tokens.mint(sandbox, reservation, NOW);
    await store.patch(
      { kind: 'Reservation', namespace: 'acme', name: RES },
      { status: { phase: 'completing' } },
      { subresource: 'status' },
    );
    expect(await code(tokens.verify(reads, t.token, SB, NOW))).toBe('invalid_viewer_token');
    await store.patch(
      { kind: 'Reservation', namespace: 'acme', name: RES },
      { status: { phase: 'active' } },
      { subresource: 'status' },
    );
    expect(await code(tokens.verify(reads, t.token, SB, NOW))).toBe('ok');
  });

  it('dies with its sandbox, even if a sandbox of the same id comes back', async () => {
    const t = tokens.mint(sandbox, reservation, NOW);
    await store.delete({ kind: 'Sandbox', namespace: 'acme', name: SB });
    expect(await code(tokens.verify(reads, t.token, SB, NOW))).toBe('invalid_viewer_token');
    await store.create<Sandbox>({ ...sandbox, metadata: { name: SB, namespace: 'acme' } });
    await store.patch(
      { kind: 'Sandbox', namespace: 'acme', name: SB },
      { status: { phase: 'running' } },
      { subresource: 'status' },
    );
    expect(await code(tokens.verify(reads, t.token, SB, NOW))).toBe('invalid_viewer_token');
  });

  it('keeps its signing secret across restarts in the data dir', async () => {
    const a = await loadViewerSecret(tmp.dir);
    const b = await loadViewerSecret(tmp.dir);
    expect(a.length).toBe(32);
    expect(b.equals(a)).toBe(true);
  });
});
