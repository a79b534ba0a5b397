import Type, { type Static } from 'typebox';
import { ObjectMeta, type KindDefinition } from './meta.ts';

/**
 * coordination.k8s.io/v1 Lease, Kubernetes' own kind (not a sandbay CRD): operator replicas elect
 * their leader with one. The store keeps it like sandbay's kinds so that leader election runs the
 * same code on a cluster and on the embedded store (whose admin listener serves it at
 * /apis/coordination.k8s.io/v1). The fields are Kubernetes' LeaseSpec.
 */
export const LEASE_API_VERSION = 'coordination.k8s.io/v1';

/** RFC 3339 with microseconds, as Kubernetes writes a MicroTime. */
const MicroTime = Type.String();

export const LeaseSpec = Type.Object(
  {
    holderIdentity: Type.Optional(Type.String()),
    leaseDurationSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    acquireTime: Type.Optional(MicroTime),
    renewTime: Type.Optional(MicroTime),
    leaseTransitions: Type.Optional(Type.Integer({ minimum: 0 })),
    strategy: Type.Optional(Type.String()),
    preferredHolder: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const LeaseSchema = Type.Object(
  {
    apiVersion: Type.Literal(LEASE_API_VERSION),
    kind: Type.Literal('Lease'),
    metadata: ObjectMeta,
    spec: Type.Optional(LeaseSpec),
  },
  { additionalProperties: false },
);
export type Lease = Static<typeof LeaseSchema>;

export const LeaseKind: KindDefinition = {
  kind: 'Lease',
  plural: 'leases',
  singular: 'lease',
  shortNames: [],
  scope: 'Namespaced',
  schema: LeaseSchema,
  description: 'A lease (coordination.k8s.io/v1): which operator replica leads.',
  printerColumns: [{ name: 'Holder', type: 'string', jsonPath: '.spec.holderIdentity' }],
  apiVersion: LEASE_API_VERSION,
};
