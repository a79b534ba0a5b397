// Wire shape of /v1/platforms: the models for sale with their availability, and for the caller's
// reservation the images and free capacity on its Macs.
import Type from 'typebox';
import { MAC_MODELS, VM_LAYOUTS } from '../../crds/meta.ts';
import { ReservationIdSchema } from './reservations.ts';

const Slot = Type.Object(
  {
    cpu: Type.Integer({ description: 'vCPUs of the warm VM.' }),
    memory_gib: Type.Integer({ description: 'Memory of the warm VM, GiB.' }),
    image: Type.String({ description: 'The image it is cloned from.' }),
    disk_gib: Type.Integer({ description: "The image's disk size, GiB." }),
  },
  { description: 'One warm VM slot.' },
);

export const PlatformsQuery = Type.Object(
  {
    reservation_id: Type.Optional({
      ...ReservationIdSchema,
      description: "The reservation to report on (default: the key's, or the account's only active one).",
    }),
  },
  { additionalProperties: false },
);

export const PlatformsSchema = Type.Object({
  models: Type.Array(
    Type.Object({
      mac_model: Type.Enum([...MAC_MODELS], { description: 'The Mac model.' }),
      cores: Type.Integer({ description: 'CPU cores of one Mac of this model.' }),
      memory_gib: Type.Integer({ description: 'Memory of one Mac of this model, GiB.' }),
      layouts: Type.Object(
        {
          split: Type.Array(Slot, { description: 'Warm VMs of a Mac in the split layout (two).' }),
          whole: Type.Array(Slot, { description: 'Warm VMs of a Mac in the whole layout (one).' }),
        },
        { description: 'The warm VMs a Mac of this model holds, per layout.' },
      ),
      available_minis: Type.Integer({ description: 'Macs of this model free to reserve now.' }),
      cents_per_hour: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Price of one Mac-hour in cents (null: not for sale).',
      }),
      pool_cents_per_sandbox_hour: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Price of one pool sandbox per started hour (null: not for sale).',
      }),
    }),
    { description: 'Every Mac model.' },
  ),
  reservation: Type.Union(
    [
      Type.Object({
        id: Type.String({ description: 'The reservation id.' }),
        mac_model: Type.Enum([...MAC_MODELS], { description: 'Its Mac model.' }),
        vm_layout: Type.Enum([...VM_LAYOUTS], { description: 'Its layout in force.' }),
        images: Type.Array(
          Type.Object({
            name: Type.String({ description: 'Image name.' }),
            disk_gib: Type.Integer({ description: 'Its disk size, GiB.' }),
          }),
          { description: 'Images present on its Macs.' },
        ),
        minis: Type.Array(
          Type.Object({
            ip: Type.String({ description: "The Mac's address." }),
            cores: Type.Integer({ description: 'CPU cores of the Mac.' }),
            memory_gib: Type.Integer({ description: 'Memory of the Mac, GiB.' }),
            sandboxes: Type.Integer({ description: 'Sandboxes holding a place on it.' }),
            max_sandboxes: Type.Integer({ description: 'At most this many in its layout.' }),
            free_cpu: Type.Integer({ description: 'vCPUs not held by its sandboxes.' }),
            free_memory_gib: Type.Integer({ description: 'Memory not held by its sandboxes, GiB.' }),
            warm_vms: Type.Array(Slot, { description: 'Its warm VMs free to claim now.' }),
          }),
          { description: 'Its Macs.' },
        ),
      }),
      Type.Null(),
    ],
    { description: "The reservation named, the key's, or the account's only active one; null if none." },
  ),
});
