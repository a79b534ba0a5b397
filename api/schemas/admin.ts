// Wire shapes of the admin views: slots, minis, sessions.
import Type from 'typebox';
import { VM_PHASES } from '../../crds/vm.ts';
import { SandboxInfoSchema } from './sandboxes.ts';

export const SLOT_STATUSES = ['warm', 'occupied', 'cloning', 'down'] as const;

export const SlotInfoSchema = Type.Object({
  mac_mini_ip: Type.String({ description: 'Address of the Mac the VM runs on.' }),
  vm_name: Type.String({ description: 'The VM name.' }),
  vm_ip: Type.String({ description: 'Address of the VM.' }),
  status: Type.Enum([...SLOT_STATUSES], {
    description:
      '`warm`, `occupied`, `cloning` or `down` (the slot is broken); a VM stopped aside to make room reports `warm`.',
  }),
  sandbox_id: Type.String({ description: 'The sandbox in the slot; `""` when none.' }),
  last_active: Type.String({
    description: 'The sandbox\'s last activity (keepalive, request, SSH or VNC); `""` when none.',
  }),
  phase: Type.Enum([...VM_PHASES, 'unknown'], { description: 'The VM phase behind `status`.' }),
  cpu: Type.Integer({ description: 'Virtual CPUs of the VM.' }),
  memory_gib: Type.Integer({ description: 'Memory of the VM in GiB.' }),
});

export const MiniItemSchema = Type.Object({
  ip: Type.String({ description: 'Address of the Mac.' }),
  slots: Type.Union([Type.Array(SlotInfoSchema), Type.Null()], {
    description: "The Mac's VM slots (slot info); null for a Mac with no VM.",
  }),
  name: Type.String({ description: 'The Mini resource name.' }),
  model: Type.String({ description: 'The Mac model.' }),
  phase: Type.String({ description: "The Mac's phase (`pending` until the reconciler sets one)." }),
  reservation: Type.Union([Type.String(), Type.Null()], {
    description: 'The reservation holding the Mac; null when free.',
  }),
  pool: Type.Boolean({ description: 'A pool Mac (`spec.pool`): serves pool sandboxes, never reserved.' }),
});

export const SessionSchema = Type.Object({
  ...SandboxInfoSchema.properties,
  account: Type.String({ description: 'The account the sandbox belongs to.' }),
});

/** Errors of the admin routes: the customer API's `{error, message}` shape. */
export const AdminErrorSchema = Type.Object({
  error: Type.String({ description: 'The error code (e.g. `account_not_found`).' }),
  message: Type.String({ description: 'What went wrong, for people.' }),
});
