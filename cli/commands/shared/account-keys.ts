// The admin API's account-key shape as the CLI reads it (api/schemas/account-keys.ts).
export interface AccountKeyWire {
  name: string;
  prefix: string;
  account: string;
  revoked: boolean;
  created_at: string;
  expires_at: string | null;
}

export function accountKeysPath(account: string): string {
  return `/admin/accounts/${encodeURIComponent(account)}/keys`;
}
