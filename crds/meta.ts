// The Kubernetes-shaped envelope every sandbay resource shares: metadata, spec, status.
// crds/ imports nothing from the project; everything else imports it.
import Type, { type Static, type TSchema } from 'typebox';

export const GROUP = 'sandbay.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** DNS-1123 subdomain, as Kubernetes requires for object names. */
export const NAME_PATTERN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';

/**
 * The schema with a description: what `kubectl explain` and the OpenAPI documents show for the
 * field (kubebuilder takes these from doc comments; here the schema is the one source). A copy
 * with every property descriptor, because TypeBox marks optional fields with a non-enumerable key
 * a spread would drop.
 */
export function doc<T extends TSchema>(description: string, schema: T): T {
  const copy = Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema)) as T;
  (copy as { description?: string }).description = description;
  return copy;
}

export const OwnerReference = Type.Object({
  apiVersion: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  uid: Type.String(),
  controller: Type.Optional(Type.Boolean()),
  blockOwnerDeletion: Type.Optional(Type.Boolean()),
});
export type OwnerReference = Static<typeof OwnerReference>;

/**
 * Which manager owns which fields (server-side apply): kept by the Kubernetes API layer
 * (api/kube/managed-fields.ts), stored as it is. `fieldsV1` is the Kubernetes FieldsV1 tree.
 */
export const ManagedFieldsEntry = Type.Object({
  manager: Type.String(),
  operation: Type.Enum(['Apply', 'Update']),
  apiVersion: Type.String(),
  time: Type.Optional(Type.String()),
  fieldsType: Type.Literal('FieldsV1'),
  fieldsV1: Type.Record(Type.String(), Type.Unknown()),
  subresource: Type.Optional(Type.String()),
});
export type ManagedFieldsEntry = Static<typeof ManagedFieldsEntry>;

/** Set by the store except name, namespace, labels, annotations, finalizers and ownerReferences (user). */
export const ObjectMeta = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 253, pattern: NAME_PATTERN }),
  namespace: Type.Optional(Type.String({ maxLength: 63 })),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  generation: Type.Optional(Type.Integer()),
  creationTimestamp: Type.Optional(Type.String()),
  deletionTimestamp: Type.Optional(Type.String()),
  finalizers: Type.Optional(Type.Array(Type.String())),
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
  annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
  ownerReferences: Type.Optional(Type.Array(OwnerReference)),
  managedFields: Type.Optional(Type.Array(ManagedFieldsEntry)),
});
export type ObjectMeta = Static<typeof ObjectMeta>;

/** A condition as Kubernetes and Orchard use them; written by reconcilers only. */
export const Condition = Type.Object({
  type: doc('The aspect this condition reports (e.g. `Ready`, `Placed`).', Type.String()),
  status: doc('`True`, `False` or `Unknown`.', Type.Enum(['True', 'False', 'Unknown'])),
  reason: doc(
    'A CamelCase code for the last transition (operator/conditions.ts).',
    Type.Optional(Type.String()),
  ),
  message: doc('The last transition explained for people.', Type.Optional(Type.String())),
  lastTransitionTime: doc('When `status` last changed (RFC 3339).', Type.Optional(Type.String())),
});
export type Condition = Static<typeof Condition>;

/** Fields every status carries; written by reconcilers only. */
export const StatusBase = {
  observedGeneration: doc(
    'reconciler: the `metadata.generation` of the spec this status describes.',
    Type.Optional(Type.Integer()),
  ),
  conditions: doc(
    "reconciler: the latest observations of the object's state.",
    Type.Optional(Type.Array(Condition)),
  ),
};

export type Scope = 'Cluster' | 'Namespaced';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  priority?: number;
}

/** What the store, the Kubernetes API, the CLI and the CRD generator need to know about a kind. */
export interface KindDefinition<S extends TSchema = TSchema> {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  scope: Scope;
  /** The whole object: apiVersion, kind, metadata, spec, status. */
  schema: S;
  printerColumns: PrinterColumn[];
  /** Kinds holding secrets or internal bookkeeping are not shown by `get -o wide` columns beyond these. */
  description: string;
  /** Kubernetes' own kinds the store also keeps (Lease) name their group/version; default sandbay's. */
  apiVersion?: string;
  /** Checks across fields that the schema cannot express, run on an object the schema accepted. */
  rules?: (obj: unknown) => { path: string; message: string }[];
}

/** The `group/version` a kind is served at. */
export function apiVersionOf(def: KindDefinition): string {
  return def.apiVersion ?? API_VERSION;
}

/** The API group and version of a kind, apart. */
export function groupVersionOf(def: KindDefinition): { group: string; version: string } {
  const [group = GROUP, version = VERSION] = apiVersionOf(def).split('/');
  return { group, version };
}

/** Builds the object schema of a kind from its spec and status schemas. */
export function resourceSchema<Spec extends TSchema, Status extends TSchema>(
  kind: string,
  spec: Spec,
  status: Status,
) {
  return Type.Object(
    {
      apiVersion: doc(`Always \`${API_VERSION}\`.`, Type.Literal(API_VERSION)),
      kind: doc(`Always \`${kind}\`.`, Type.Literal(kind)),
      metadata: doc(
        'Standard object metadata: name, namespace, labels, annotations, finalizers, owners; the rest is set by the store.',
        ObjectMeta,
      ),
      spec: doc(
        `What is wanted of this ${kind}: written by users (API, CLI, kubectl), read by reconcilers.`,
        spec,
      ),
      status: doc(
        `What the reconcilers observed of this ${kind}: written only by them, through the status subresource.`,
        Type.Optional(status),
      ),
    },
    { additionalProperties: false },
  );
}

/** The TypeScript shape of any stored object, for code that handles every kind alike. */
export interface AnyResource {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
}

export const MAC_MODELS = ['m4', 'm4-pro', 'm5-pro'] as const;
export type MacModel = (typeof MAC_MODELS)[number];

/**
 * What a Mac holds: its model, and for a linux Mac an operator's `vmSlots` (beyond the spec,
 * docs/capacity.md): that many VM slots of the smallest sandbox instead of the model's two.
 */
export interface MacShape {
  model: MacModel;
  vmSlots?: number | undefined;
}
export const VM_LAYOUTS = ['split', 'whole'] as const;
export type VmLayout = (typeof VM_LAYOUTS)[number];
export const DRIVERS = ['linux', 'tart', 'sim'] as const;
export type DriverKind = (typeof DRIVERS)[number];

export const MacModelSchema = Type.Enum([...MAC_MODELS]);
export const VmLayoutSchema = Type.Enum([...VM_LAYOUTS]);
export const DateTime = Type.String({ format: 'date-time' });
