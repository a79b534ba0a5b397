// Accounts and keys written straight into the store, the way the admin CLI and the API write them
// (a grant in the ledger; keys as hashes only), for tests that need a customer but do not test the
// admin path itself.
import { API_VERSION, type Account } from '../../crds/index.ts';
import type { Store } from '../../store/store.ts';
import { apiKeyResource, generateKey } from '../../api/keys.ts';

let userSeq = 0;

/** An Account holding `balanceCents` of credit, granted at `grantedAt` (the ledger's one entry). */
export async function createAccount(
  store: Store,
  name: string,
  balanceCents: number,
  grantedAt = new Date(0),
): Promise<Account> {
  userSeq++;
  await store.create<Account>({
    apiVersion: API_VERSION,
    kind: 'Account',
    metadata: { name },
    spec: { displayName: name, userId: `00000000-0000-4000-8000-${String(userSeq).padStart(12, '0')}` },
  });
  return store.patch<Account>(
    { kind: 'Account', name },
    {
      status: {
        balanceCents,
        ledger: [{ at: grantedAt.toISOString(), amountCents: balanceCents, reason: 'grant' }],
      },
    },
    { subresource: 'status' },
  );
}

/** Writes an ApiKey (hash only) and returns its plaintext. */
export async function seedKey(
  store: Store,
  spec: {
    kind: 'account' | 'reservation' | 'admin';
    account?: string;
    reservation?: string;
    expiresAt?: string;
  },
): Promise<string> {
  const key = generateKey();
  await store.create(apiKeyResource(key, spec));
  return key.plaintext;
}

/** An Account with `balanceCents` of credit and an account key; returns the key's plaintext. */
export async function seedAccount(store: Store, name: string, balanceCents = 10_000_000): Promise<string> {
  await createAccount(store, name, balanceCents);
  return seedKey(store, { kind: 'account', account: name });
}
