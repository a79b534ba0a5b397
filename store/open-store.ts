// Which store a process uses: the embedded SQLite file in its data directory, or a Kubernetes API
// server (a cluster, or another sandbay's admin listener) through the client-node backend.
import { join } from 'node:path';
import { openSqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

export const STORE_KINDS_CHOICES = ['sqlite', 'kube'] as const;
export type StoreChoice = (typeof STORE_KINDS_CHOICES)[number];

export interface StoreOptions {
  store: StoreChoice;
  /** sqlite: where `sandbay.db` lives. */
  dataDir: string;
  /** kube: a kubeconfig file (default: in-cluster config inside a pod, else KUBECONFIG or ~/.kube/config). */
  kubeconfig?: string;
  /** kube: a context of the kubeconfig. */
  context?: string;
}

export const DATABASE_FILE = 'sandbay.db';

export async function openStore(opts: StoreOptions): Promise<Store> {
  if (opts.store === 'sqlite') {
    if (opts.kubeconfig !== undefined || opts.context !== undefined) {
      throw new Error('--kubeconfig and --context apply to --store kube only');
    }
    return openSqliteStore({ file: join(opts.dataDir, DATABASE_FILE) });
  }
  // Loaded for this choice only: @kubernetes/client-node is some 900 modules (and undici) that a
  // process on the SQLite store never runs.
  const { loadKubeConfig } = await import('./kube/config.ts');
  const { connectKubeStore } = await import('./kube/kube-store.ts');
  return connectKubeStore(
    loadKubeConfig({
      ...(opts.kubeconfig !== undefined && { kubeconfig: opts.kubeconfig }),
      ...(opts.context !== undefined && { context: opts.context }),
    }),
  );
}
