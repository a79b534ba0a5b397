// The Kubernetes store against a real HTTP API server: sandbay's own admin listener on an embedded
// SQLite store, reached through client-node exactly as a cluster would be (kubeconfig, bearer token).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../api/admin-app.ts';
import { listenHttpAndHttps, type DualListener } from '../../api/admin-listener.ts';
import { ensureAdminTls } from '../../api/admin-tls.ts';
import { apiKeyResource, generateKey } from '../../api/keys.ts';
import type { Lease } from '../../crds/index.ts';
import { mini } from '../../api/kube/testing.ts';
import { Informer } from '../../operator/runtime/informer.ts';
import { LeaderElector } from '../../operator/runtime/leader.ts';
import { waitFor } from '../../test/support/wait.ts';
import { runStoreConformance } from '../conformance.ts';
import { openSqliteStore, type SqliteStore } from '../sqlite-store.ts';
import { loadKubeConfig } from './config.ts';
import { connectKubeStore } from './kube-store.ts';

let dir: string;
let embedded: SqliteStore;
let listener: DualListener;
let kubeconfig: string;

export function kubeconfigYaml(server: string, token: string, ca: string, context = 'sandbay'): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${context}`,
    'clusters:',
    `- name: embedded`,
    `  cluster: { server: "${server}", certificate-authority: "${ca}" }`,
    'users:',
    `- name: admin`,
    `  user: { token: "${token}" }`,
    'contexts:',
    `- name: ${context}`,
    '  context: { cluster: embedded, user: admin }',
    '',
  ].join('\n');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbay-kube-store-'));
  embedded = await openSqliteStore({ file: join(dir, 'store.sqlite') });
  const key = generateKey();
  await embedded.create(apiKeyResource(key, { kind: 'admin' }));
  const ca = join(dir, 'tls.crt');
  const tls = await ensureAdminTls(ca, join(dir, 'tls.key'), '127.0.0.1');
  listener = await listenHttpAndHttps(await buildAdminApp({ store: embedded }), {
    port: 0,
    host: '127.0.0.1',
    tls,
  });
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, kubeconfigYaml(listener.httpsUrl, key.plaintext, ca));
});

afterAll(async () => {
  await listener?.close();
  await embedded?.close();
  rmSync(dir, { recursive: true, force: true });
});

runStoreConformance({
  name: 'kube (client-node against the embedded API server)',
  open: async () => {
    const store = await connectKubeStore(loadKubeConfig({ kubeconfig }));
    return {
      store,
      cleanup: () => store.close(),
      compact: async () => void (await embedded.compact({ maxEvents: 1 })),
    };
  },
});

describe('kube store: configuration errors name the fix', () => {
  it('refuses a kubeconfig that does not parse', () => {
    const bad = join(dir, 'bad-kubeconfig');
    writeFileSync(bad, 'clusters: [unclosed\n');
    expect(() => loadKubeConfig({ kubeconfig: bad })).toThrow(/does not parse.*fix the file/);
  });

  it('refuses a context the kubeconfig does not have, listing those it has', () => {
    expect(() => loadKubeConfig({ kubeconfig, context: 'prod' })).toThrow(
      /no context "prod" \(it has: sandbay\).*--context/,
    );
  });

  it('refuses a missing kubeconfig file', () => {
    expect(() => loadKubeConfig({ kubeconfig: join(dir, 'nope') })).toThrow(/cannot read the kubeconfig/);
  });
});

describe('kube store: what the operator runs on it', () => {
  it('runs an informer unchanged: lists, watches, and sees writes made behind its back', async () => {
    const store = await connectKubeStore(loadKubeConfig({ kubeconfig }));
    const informer = new Informer({ store, kind: 'Mini' });
    try {
      await embedded.create(mini('inf-a'));
      await informer.start();
      expect(informer.get('inf-a')).toBeDefined();
      await embedded.create(mini('inf-b'));
      await informer.waitUntil(() => informer.get('inf-b') !== undefined);
      await embedded.delete({ kind: 'Mini', name: 'inf-a' });
      await informer.waitUntil(() => informer.get('inf-a') === undefined);
      // History compacted under it: the next watch from an old version expires and it lists again.
      const relists = informer.relists;
      await embedded.compact({ maxEvents: 1 });
      informer.stop();
      const again = new Informer({ store, kind: 'Mini' });
      await again.start();
      expect(again.get('inf-b')).toBeDefined();
      expect(relists).toBe(1);
      again.stop();
    } finally {
      informer.stop();
      await store.close();
    }
  });

  it('elects a leader over coordination.k8s.io/v1 Leases served by the embedded endpoint', async () => {
    const store = await connectKubeStore(loadKubeConfig({ kubeconfig }));
    let led = false;
    const elector = new LeaderElector({
      store,
      namespace: 'sandbay-system',
      name: 'kube-store-test',
      identity: 'replica-1',
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 200,
      onStartedLeading: () => void (led = true),
      onStoppedLeading: () => void (led = false),
    });
    try {
      elector.start();
      await waitFor(() => led, 'leading');
      const lease = await embedded.get<Lease>({
        kind: 'Lease',
        namespace: 'sandbay-system',
        name: 'kube-store-test',
      });
      expect(lease?.apiVersion).toBe('coordination.k8s.io/v1');
      expect(lease?.spec?.holderIdentity).toBe('replica-1');
    } finally {
      await elector.stop();
      await store.close();
    }
    expect(led).toBe(false);
  });
});

describe('kube store: the API server restarting under a watch', () => {
  it('resumes from the last version it delivered: nothing missed, nothing repeated, no relist', async () => {
    const store = await connectKubeStore(loadKubeConfig({ kubeconfig }));
    const seen: string[] = [];
    const watch = store.watch('Mini', {}, (e) => {
      if (e.object.metadata.name.startsWith('restart-')) seen.push(`${e.type} ${e.object.metadata.name}`);
    });
    try {
      await embedded.create(mini('restart-before'));
      await waitFor(() => seen.includes('ADDED restart-before'), 'the first event');
      const port = listener.port;
      await listener.close();
      // Written while the server is down: the watch must still deliver these after it comes back.
      await embedded.create(mini('restart-during'));
      await embedded.delete({ kind: 'Mini', name: 'restart-before' });
      listener = await listenHttpAndHttps(await buildAdminApp({ store: embedded }), {
        port,
        host: '127.0.0.1',
        tls: await ensureAdminTls(join(dir, 'tls.crt'), join(dir, 'tls.key'), '127.0.0.1'),
      });
      await embedded.create(mini('restart-after'));
      await waitFor(() => seen.includes('ADDED restart-after'), 'the event after the restart', 15_000);
      expect(seen).toEqual([
        'ADDED restart-before',
        'ADDED restart-during',
        'DELETED restart-before',
        'ADDED restart-after',
      ]);
    } finally {
      watch.stop();
      await store.close();
    }
    expect(await watch.done).toBeUndefined();
  });
});
