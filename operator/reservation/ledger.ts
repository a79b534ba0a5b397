// The account ledger as the reservation reconciler uses it. What a reservation has paid is not a
// field anyone could forget to update: it is the sum of the ledger entries naming it. Settling a
// reservation to a target amount therefore is idempotent (a retry after a crash appends nothing),
// and every append is a conditional write on the Account, so two purchases never spend the same
// credit.
import type { Account, LedgerEntry } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';

/** What the reservation has paid so far, net of refunds. */
export function netPaidCents(account: Account | undefined, reservation: string): number {
  let sum = 0;
  for (const e of account?.status?.ledger ?? []) if (e.reservation === reservation) sum -= e.amountCents;
  return sum;
}

export function balanceCents(account: Account): number {
  if (account.status?.balanceCents !== undefined) return account.status.balanceCents;
  return (account.status?.ledger ?? []).reduce((sum, e) => sum + e.amountCents, 0);
}

export type SettleOutcome =
  | { ok: true; chargedCents: number }
  | { ok: false; reason: 'insufficient_credit' | 'no_account'; message: string };

/**
 * Brings what `reservation` has paid to `targetCents`: charges the difference (a purchase) or
 * refunds the excess. Throws StoreError Conflict when the account changed meanwhile (the reconcile
 * retries on fresh data).
 */
export async function settle(
  ctx: OperatorContext,
  accountName: string,
  reservation: string,
  targetCents: number,
): Promise<SettleOutcome> {
  const account = await ctx.store.get<Account>({ kind: 'Account', name: accountName });
  if (!account) return { ok: false, reason: 'no_account', message: `account ${accountName} does not exist` };
  const delta = targetCents - netPaidCents(account, reservation);
  if (delta === 0) return { ok: true, chargedCents: 0 };
  const balance = balanceCents(account);
  if (delta > 0 && balance < delta) {
    return {
      ok: false,
      reason: 'insufficient_credit',
      message: `this costs ${delta} cents; the account balance is ${balance} cents`,
    };
  }
  const entry: LedgerEntry = {
    at: new Date(ctx.clock.now()).toISOString(),
    amountCents: -delta,
    reason: delta > 0 ? 'purchase' : 'refund',
    reservation,
  };
  await ctx.store.updateStatus<Account>({
    ...account,
    status: {
      ...account.status,
      ledger: [...(account.status?.ledger ?? []), entry],
      balanceCents: balance - delta,
    },
  });
  ctx.logger.info(
    { account: accountName, reservation, amountCents: -delta, reason: entry.reason },
    'ledger entry',
  );
  return { ok: true, chargedCents: delta };
}
