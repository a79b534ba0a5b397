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
