// The admin views (admin listener, admin key checked by the admin app): Mac minis with their VM
// slots, all slots, and every active session across accounts. Read-only.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Mini, Sandbox, VM } from '../../crds/index.ts';
import type { Store } from '../../store/store.ts';
import { MiniItemSchema, SessionSchema, SlotInfoSchema } from '../schemas/admin.ts';
import { sandboxInfo } from '../services/sandboxes.ts';
import { vncPath } from '../viewer-token.ts';
import type { ApiMetrics } from '../metrics.ts';

/**
 * VM phase → the spec's slot status. A VM stopped aside to make room (behavior rule 6) is a clean
 * VM the next sandbox boots from: `warm`, not `down` (which says the slot is broken); `phase`
 * tells the two warm kinds apart.
 */
const SLOT_STATUS = {
  warm: 'warm',
  occupied: 'occupied',
  cloning: 'cloning',
  stopped: 'warm',
  down: 'down',
} as const;

/** The sandbox on a VM, as `namespace/name`. */
function sandboxKey(vm: VM): string | undefined {
  return vm.spec.sandbox ?? vm.status?.sandbox;
}

/**
 * The slot's status: its phase's, except that a claimed VM is `occupied` from the claim on (the pool
 * marks it so in its next pass, which follows a burst of claims instead of running inside it).
 */
function slotStatus(vm: VM) {
  const phase = vm.status?.phase;
  if (vm.spec.sandbox !== undefined && (phase === 'warm' || phase === 'stopped')) return 'occupied';
  return phase ? SLOT_STATUS[phase] : 'cloning';
}

function slotInfo(vm: VM, minis: Map<string, Mini>, sandboxes: Map<string, Sandbox>) {
  const phase = vm.status?.phase;
  const key = sandboxKey(vm);
  // Activity is recorded on the sandbox (the API's keepalives, the reaper); the slot shows its.
  const lastActive = (key && sandboxes.get(key)?.status?.lastActive) || vm.status?.lastActive;
  return {
    mac_mini_ip: minis.get(vm.spec.mini)?.spec.address ?? '',
    vm_name: vm.status?.vmName ?? vm.metadata.name,
    vm_ip: vm.status?.vmIp ?? '',
    status: slotStatus(vm),
    sandbox_id: (key ?? '').split('/').pop() ?? '',
    last_active: lastActive ?? '',
    phase: phase ?? ('unknown' as const),
    cpu: vm.status?.cpu ?? vm.spec.cpu,
    memory_gib: vm.status?.memoryGiB ?? vm.spec.memoryGiB,
  };
}

async function fleet(store: Store) {
  const [minis, vms, sandboxes] = await Promise.all([
    store.list<Mini>('Mini'),
    store.list<VM>('VM'),
    store.list<Sandbox>('Sandbox'),
  ]);
  const byName = new Map(minis.items.map((m) => [m.metadata.name, m]));
  const sorted = vms.items.sort(
    (a, b) => a.spec.mini.localeCompare(b.spec.mini) || a.spec.slot - b.spec.slot,
  );
  const sandboxByKey = new Map(sandboxes.items.map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, s]));
  return { minis: minis.items, vms: sorted, byName, sandboxByKey };
}

export interface AdminRouteOptions {
  store: Store;
  /** The customer app's metrics, served at /metrics on the admin listener. */
  metrics?: ApiMetrics;
}

export const adminRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async (app, { store, metrics }) => {
  const tags = ['admin'];

  app.get(
    '/admin/minis',
    {
      schema: {
        operationId: 'listMinis',
        tags,
        summary: 'Mac minis with their VM slots',
        response: { 200: Type.Array(MiniItemSchema) },
      },
    },
    async () => {
      const { minis, vms, byName, sandboxByKey } = await fleet(store);
      return minis.map((m) => {
        const slots = vms
          .filter((vm) => vm.spec.mini === m.metadata.name)
          .map((vm) => slotInfo(vm, byName, sandboxByKey));
        return {
          ip: m.spec.address,
          slots: slots.length > 0 ? slots : null,
          name: m.metadata.name,
          model: m.spec.model,
          phase: m.status?.phase ?? 'pending',
          reservation: m.status?.reservation ?? null,
          pool: m.spec.pool === true,
        };
      });
    },
  );

  app.get(
    '/admin/slots',
    {
      schema: {
        operationId: 'listSlots',
        tags,
        summary: 'Every VM slot',
        response: { 200: Type.Array(SlotInfoSchema) },
      },
    },
    async () => {
      const { vms, byName, sandboxByKey } = await fleet(store);
      return vms.map((vm) => slotInfo(vm, byName, sandboxByKey));
    },
  );

  app.get(
    '/admin/sessions',
    {
      schema: {
        operationId: 'listSessions',
        tags,
        summary: 'Every live sandbox, all accounts',
        response: { 200: Type.Array(SessionSchema) },
      },
    },
    async () => {
      const { items } = await store.list<Sandbox>('Sandbox');
      return items
        .filter((s) => !s.metadata.deletionTimestamp || s.status?.phase === 'completing')
        .map((s) => ({ ...sandboxInfo(s, vncPath(s.metadata.name)), account: s.metadata.namespace ?? '' }));
    },
  );

  if (metrics) {
    app.get(
      '/metrics',
      { schema: { operationId: 'getMetrics', tags, summary: 'Prometheus metrics of the customer API' } },
      async (_request, reply) =>
        reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
    );
  }
};
