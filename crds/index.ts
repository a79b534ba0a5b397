// The curated list of sandbay's resource kinds.
import type { KindDefinition } from './meta.ts';
import { AccountKind } from './account.ts';
import { ApiKeyKind } from './api-key.ts';
import { BlobKind } from './blob.ts';
import { EvaluationAttemptKind, EvaluationRunKind } from './evaluation-run.ts';
import { IdempotencyRecordKind } from './idempotency-record.ts';
import { LeaseKind } from './lease.ts';
import { MiniKind } from './mini.ts';
import { RateKind } from './rate.ts';
import { ReservationKind } from './reservation.ts';
import { SandboxKind } from './sandbox.ts';
import { SnapshotKind } from './snapshot.ts';
import { ReplayKind, TaskKind } from './task.ts';
import { VMKind } from './vm.ts';

export * from './meta.ts';
export * from './account.ts';
export * from './api-key.ts';
export * from './blob.ts';
export * from './evaluation-run.ts';
export * from './grader.ts';
export * from './setup-step.ts';
export * from './idempotency-record.ts';
export * from './lease.ts';
export * from './mini.ts';
export * from './rate.ts';
export * from './reservation.ts';
export * from './sandbox.ts';
export * from './snapshot.ts';
export * from './task.ts';
export * from './vm.ts';

export const KINDS: readonly KindDefinition[] = [
  MiniKind,
  VMKind,
  ReservationKind,
  SandboxKind,
  SnapshotKind,
  TaskKind,
  ReplayKind,
  EvaluationRunKind,
  EvaluationAttemptKind,
  BlobKind,
  AccountKind,
  ApiKeyKind,
  RateKind,
  IdempotencyRecordKind,
];

/** Kubernetes' own kinds the store keeps too (not CRDs, not in `kubectl get sandbay`). */
export const BUILTIN_KINDS: readonly KindDefinition[] = [LeaseKind];

/** Every kind the store keeps. */
export const STORE_KINDS: readonly KindDefinition[] = [...KINDS, ...BUILTIN_KINDS];

const byAnyName = new Map<string, KindDefinition>();
for (const k of STORE_KINDS) {
  for (const n of [k.kind, k.plural, k.singular, ...k.shortNames]) byAnyName.set(n.toLowerCase(), k);
}

/** Finds a kind by its kind name, plural, singular or short name (case-insensitive), as kubectl does. */
export function findKind(name: string): KindDefinition | undefined {
  return byAnyName.get(name.toLowerCase());
}
export * from './mac-models.ts';
export * from './egress.ts';
