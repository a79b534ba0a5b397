// Which cluster the Kubernetes store talks to: a kubeconfig file (and a context in it), the
// service account of the pod it runs in, or the default kubeconfig (KUBECONFIG, ~/.kube/config).
// Every way it can go wrong at start is an Error that says what to fix.
import { existsSync, readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

export interface KubeConnectionOptions {
  /** A kubeconfig file. Omitted: in-cluster config inside a pod, else KUBECONFIG or ~/.kube/config. */
  kubeconfig?: string;
  /** A context of the kubeconfig. Omitted: its current-context. */
  context?: string;
}

/** Where a pod's service account token is mounted. */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export function insidePod(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(SERVICE_ACCOUNT_TOKEN);
}

export function loadKubeConfig(opts: KubeConnectionOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  if (opts.kubeconfig !== undefined) {
    let text: string;
    try {
      text = readFileSync(opts.kubeconfig, 'utf8');
    } catch (err) {
      throw new Error(
        `cannot read the kubeconfig ${opts.kubeconfig}: ${(err as Error).message}; pass an existing file with --kubeconfig`,
        { cause: err },
      );
    }
    try {
      kc.loadFromString(text);
    } catch (err) {
      throw new Error(
        `the kubeconfig ${opts.kubeconfig} does not parse: ${firstLine(err)}; fix the file (kubectl config view --kubeconfig ${opts.kubeconfig} shows what kubectl reads)`,
        { cause: err },
      );
    }
  } else if (insidePod()) {
    kc.loadFromCluster();
  } else {
    try {
      kc.loadFromDefault();
    } catch (err) {
      throw new Error(
        `the default kubeconfig does not parse: ${firstLine(err)}; fix it or pass --kubeconfig`,
        { cause: err },
      );
    }
  }
  if (opts.context !== undefined) {
    if (!kc.getContextObject(opts.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new Error(
        `the kubeconfig has no context "${opts.context}" (it has: ${known.join(', ') || 'none'}); pass one of those with --context`,
      );
    }
    kc.setCurrentContext(opts.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) {
    throw new Error(
      'the kubeconfig names no current cluster; pass --kubeconfig FILE and --context NAME, or run inside a pod',
    );
  }
  return kc;
}

function firstLine(err: unknown): string {
  return ((err as Error).message ?? String(err)).split('\n')[0] ?? '';
}
