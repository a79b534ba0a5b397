// The reservation key. The API generates it (and shows the plaintext once) when it sells the
// reservation; for a reservation written any other way (YAML, kubectl) the reconciler creates one
// so that the spec's "a key is generated when a paid reservation activates" holds. Its plaintext
// is then thrown away: only the hash is ever stored, and the owner uses the account key.
import { createHash, randomBytes } from 'node:crypto';
import { API_VERSION, type ApiKey, type Reservation } from '../../crds/index.ts';
import { isStoreError } from '../../store/store.ts';
import { Indexes, type OperatorContext } from '../context.ts';
import { reservationKey } from './minis.ts';

export function keysOf(ctx: OperatorContext, reservation: string): ApiKey[] {
  return ctx.informers.apiKeys.byIndex(Indexes.keyByReservation, reservation);
}

/** The name of the reservation's key, creating one if the API has not. */
export async function ensureKey(ctx: OperatorContext, r: Reservation): Promise<string> {
  const key = reservationKey(r);
  const existing = keysOf(ctx, key).filter((k) => !k.spec.revoked);
  if (r.status?.keyRef && existing.some((k) => k.metadata.name === r.status!.keyRef)) return r.status.keyRef;
  if (existing[0]) return existing[0].metadata.name;
  const plaintext = `sbk_${randomBytes(24).toString('base64url')}`;
  const sha256 = createHash('sha256').update(plaintext).digest('hex');
  const name = `k-${sha256.slice(0, 40)}`;
  try {
    await ctx.client.create<ApiKey>({
      apiVersion: API_VERSION,
      kind: 'ApiKey',
      metadata: { name, labels: { 'sandbay.io/key-kind': 'reservation' } },
      spec: {
        kind: 'reservation',
        account: r.metadata.namespace!,
        reservation: key,
        sha256,
        prefix: plaintext.slice(0, 12),
        revoked: false,
      },
    });
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
  }
  return name;
}

/** Revokes every key of the reservation (expiry, cancellation, deletion). */
export async function revokeKeys(ctx: OperatorContext, reservation: string): Promise<void> {
  for (const k of keysOf(ctx, reservation)) {
    if (k.spec.revoked) continue;
    await ctx.client.update<ApiKey>({ ...k, spec: { ...k.spec, revoked: true } });
  }
}
