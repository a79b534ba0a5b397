// The flags that choose a process's store, shared by `server`, `api` and `operator`.
import { Flags } from '@oclif/core';

export const storeFlags = {
  store: Flags.string({
    description: 'where resources live: the embedded SQLite file, or a Kubernetes API server',
    options: ['sqlite', 'kube'],
    default: 'sqlite',
  }),
  kubeconfig: Flags.string({
    description:
      'kubeconfig file for --store kube (default: in-cluster config in a pod, else KUBECONFIG or ~/.kube/config)',
  }),
  context: Flags.string({
    description: 'kubeconfig context for --store kube (default: its current context)',
  }),
};

export function storeOptions(flags: {
  store: string;
  kubeconfig?: string | undefined;
  context?: string | undefined;
}) {
  return {
    store: flags.store as 'sqlite' | 'kube',
    ...(flags.kubeconfig !== undefined && { kubeconfig: flags.kubeconfig }),
    ...(flags.context !== undefined && { context: flags.context }),
  };
}

/** Resolves with the signal that asked the process to stop. */
export function untilSignalled(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}
