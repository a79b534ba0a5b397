// The admin listener under fuzz, composed as `sandbay server` composes it (api/server.ts
// `adminListenerRoutes`: the Kubernetes-compatible API, the spec's /admin/* views, account keys,
// /metrics, the admin view's pages) on its real HTTP+HTTPS listener, over a real SQLite store that
// holds one of each kind a request could name. No operator: nothing changes the store but requests.
import path from 'node:path';
import { API_VERSION, STORE_KINDS, type AnyResource } from '../../../crds/index.ts';
import { buildAdminApp } from '../../../api/admin-app.ts';
import { listenHttpAndHttps, type DualListener } from '../../../api/admin-listener.ts';
import { ensureAdminTls } from '../../../api/admin-tls.ts';
import { JSON_TYPES, YAML_TYPES } from '../../../api/kube/body.ts';
import { KUBE_PATH_PREFIXES } from '../../../api/kube/index.ts';
import { ApiMetrics } from '../../../api/metrics.ts';
import { loadDashboard } from '../../../api/routes/dashboard.ts';
import { adminListenerRoutes } from '../../../api/server.ts';
import type { SqliteStore } from '../../../store/sqlite-store.ts';
import {
  openStore,
  seedAccount,
  seedKey,
  seedRate,
  seedReservation,
  tempDir,
  type TempDir,
} from '../../api-harness.ts';
import type { HttpWorld } from './http-targets.ts';
import { routesOf, schemaInput, type RouteInput, type RouteRef } from './route-list.ts';
import type { JsonSchema } from './schema-values.ts';

/** A resource as a client would write one: the kind's API version and kind, a name, a spec. */
const RESOURCE: JsonSchema = {
  type: 'object',
  properties: {
    apiVersion: { enum: [API_VERSION, 'coordination.k8s.io/v1', 'v1'] },
    kind: { enum: [...STORE_KINDS.map((k) => k.kind), 'Pod'] },
    metadata: {
      type: 'object',
      properties: {
        name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$' },
        namespace: { enum: ['acme', 'default'] },
        resourceVersion: { type: 'string', pattern: '^[0-9]{1,4}$' },
        labels: { type: 'object', properties: { app: { type: 'string', maxLength: 10 } } },
        finalizers: { type: 'array', items: { enum: ['sandbay.io/x', 'example.com/y'] } },
      },
      required: ['name'],
    },
    spec: { type: 'object' },
  },
  required: ['apiVersion', 'kind', 'metadata'],
};

/** What the Kubernetes routes take (they have no schema of their own: the plural says the kind). */
const KUBE_INPUT: RouteInput = {
  query: {
    labelSelector: { enum: ['app=x', 'app in (a,b)', '!app', 'a=b,c!=d'] },
    fieldSelector: { enum: ['metadata.name=acme', 'metadata.namespace!=x', 'spec.x=y'] },
    limit: { type: 'integer', minimum: 0, maximum: 600 },
    continue: { type: 'string', maxLength: 20 },
    // Not a version past the store's head: Kubernetes answers that 504 ResourceVersionTooLarge after
    // a wait (api/kube/resource-version.test.ts), a 5xx by design that the verdict would count.
    resourceVersion: { enum: ['0', '1', '2'] },
    resourceVersionMatch: { enum: ['NotOlderThan', 'Exact'] },
    watch: { enum: ['false', '0'] },
    allowWatchBookmarks: { enum: ['true', 'false'] },
    timeoutSeconds: { type: 'integer', minimum: 0, maximum: 2 },
    dryRun: { enum: ['All'] },
    fieldManager: { type: 'string', maxLength: 10 },
    force: { enum: ['true', 'false'] },
    propagationPolicy: { enum: ['Foreground', 'Background', 'Orphan'] },
    includeObject: { enum: ['None', 'Object', 'Metadata'] },
  },
  bodyTypes: [...JSON_TYPES, ...YAML_TYPES],
  bodySchema: RESOURCE,
};

export interface AdminWorld extends HttpWorld {
  store: SqliteStore;
  routes: RouteRef[];
  inputOf(route: RouteRef): RouteInput | undefined;
  close(): Promise<void>;
}

export async function startAdminWorld(opts: { deadlineMs: number }): Promise<AdminWorld> {
  const tmp: TempDir = await tempDir('sandbay-fuzz-admin-');
  const store = await openStore(tmp.dir);
  const adminKey = await seedKey(store, { kind: 'admin' });
  const accountKey = await seedAccount(store, 'acme', 1_000_000);
  await seedRate(store, 'm4', 1200);
  await seedReservation(store, 'acme', 'r1', { phase: 'active' });
  await store.create({
    apiVersion: API_VERSION,
    kind: 'Mini',
    metadata: { name: 'mini-1' },
    spec: { address: '10.0.0.1', model: 'm4', driver: 'sim', schedulable: true },
  });
  // What a request may change: everything but the admin key's own ApiKey, which it must not lose.
  const seeded = new Map<string, AnyResource>();
  for (const { kind } of STORE_KINDS)
    for (const o of (await store.list<AnyResource>(kind)).items) seeded.set(keyOf(o), o);

  const app = await buildAdminApp({
    store,
    authFailureLimits: false,
    ...adminListenerRoutes(new ApiMetrics(), await loadDashboard()),
  });
  const tls = await ensureAdminTls(path.join(tmp.dir, 'tls.crt'), path.join(tmp.dir, 'tls.key'), '127.0.0.1');
  const listener: DualListener = await listenHttpAndHttps(app, { port: 0, host: '127.0.0.1', tls });
  const routes = routesOf(app);
  const names = [...seeded.values()].map((o) => o.metadata.name);
  const plurals = STORE_KINDS.map((k) => k.plural);
  const isKube = (url: string) => KUBE_PATH_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`));

  const world: AdminWorld = {
    store,
    routes,
    port: listener.port,
    deadlineMs: opts.deadlineMs,
    inputOf: (route) =>
      schemaInput(route) ??
      (isKube(route.url)
        ? KUBE_INPUT
        : /^\/(metrics|admin\/dashboard(\/.*)?)$/.test(route.url)
          ? {}
          : undefined),
    params(name) {
      switch (name) {
        case 'namespace':
          return ['acme', 'default', 'kube-system'];
        case 'plural':
          return [...plurals, 'pods'];
        case 'name':
          return [...names, 'missing'];
        case 'account':
          return ['acme', 'nobody'];
        case 'key':
          return [...names.filter((n) => n.startsWith('k-')), 'k-missing'];
        case '*':
          return ['', 'index.html', 'sandboxes/x'];
        default:
          return undefined;
      }
    },
    credentials() {
      return [
        [['Authorization', `Bearer ${adminKey}`]],
        [],
        [['Authorization', `Bearer ${accountKey}`]],
        [['Authorization', 'Bearer sbk_wrong']],
        [['Authorization', `Basic ${Buffer.from(`admin:${adminKey}`).toString('base64')}`]],
        [
          ['Authorization', `Bearer ${adminKey}`],
          ['Authorization', 'Bearer x'],
        ],
      ];
    },
    hints: () => ({}),
    errorShape: (p) => (isKube(p.split('?')[0]!) ? 'kube-status' : 'sandbay'),
    async state() {
      const out = new Map<string, string>();
      for (const { kind } of STORE_KINDS)
        for (const o of (await store.list<AnyResource>(kind)).items) out.set(keyOf(o), JSON.stringify(o));
      return out;
    },
    /** Seeded objects a request deleted or changed are written again, so later cases find them. */
    async settle() {
      for (const [k, o] of seeded) {
        const [kind, namespace, name] = k.split('/') as [string, string, string];
        const ref = { kind, ...(namespace && { namespace }), name };
        const now = await store.get<AnyResource>(ref);
        if (now && !now.metadata.deletionTimestamp && JSON.stringify(now.spec) === JSON.stringify(o.spec))
          continue;
        if (now) {
          if (now.metadata.finalizers?.length)
            await store
              .update({ ...now, metadata: { ...now.metadata, finalizers: [] } })
              .catch(() => undefined);
          await store.delete(ref).catch(() => undefined);
        }
        const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, ...metadata } = o.metadata;
        await store.create({ ...o, metadata });
        if (o.status) await store.patch(ref, { status: o.status }, { subresource: 'status' });
      }
    },
    async close() {
      await listener.close();
      await store.close();
      await tmp.cleanup();
    },
  };
  return world;
}

function keyOf(o: AnyResource): string {
  return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}
