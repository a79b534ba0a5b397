import { Args } from '@oclif/core';
import { AdminCommand } from '../../shared/admin-command.ts';
import { type AccountKeyWire, accountKeysPath } from '../../shared/account-keys.ts';

export default class AccountsKeysRevoke extends AdminCommand {
  static override summary = 'Revoke an account API key: it answers 401 from the next request on.';
  static override examples = [
    '<%= config.bin %> accounts keys revoke acme k-0123456789abcdef0123456789abcdef01234567',
    '<%= config.bin %> accounts keys revoke acme sbk_AbCdEfGh',
  ];
  static override args = {
    account: Args.string({ description: 'account name', required: true }),
    key: Args.string({ description: "the key's name (k-…) or its shown prefix", required: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AccountsKeysRevoke);
    const key = await this.connect(flags).admin<AccountKeyWire>(
      'DELETE',
      `${accountKeysPath(args.account)}/${encodeURIComponent(args.key)}`,
    );
    this.log(`apikey/${key.name} (${key.prefix}) revoked`);
  }
}
