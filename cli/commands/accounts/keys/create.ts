import { Args, Flags } from '@oclif/core';
import { AdminCommand } from '../../shared/admin-command.ts';
import { type AccountKeyWire, accountKeysPath } from '../../shared/account-keys.ts';

export default class AccountsKeysCreate extends AdminCommand {
  static override summary = 'Issue another API key for an account (to rotate: create, switch, revoke).';
  static override description =
    'The server generates the key and answers its plaintext once; only its SHA-256 is stored.';
  static override examples = [
    '<%= config.bin %> accounts keys create acme',
    '<%= config.bin %> accounts keys create acme --expires-at 2027-01-01T00:00:00Z',
  ];
  static override args = { account: Args.string({ description: 'account name', required: true }) };
  static override flags = {
    'expires-at': Flags.string({ description: 'RFC 3339 time the key stops working (default: never)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AccountsKeysCreate);
    const expiresAt = flags['expires-at'];
    const issued = await this.connect(flags).admin<AccountKeyWire & { key: string }>(
      'POST',
      accountKeysPath(args.account),
      expiresAt !== undefined ? { expires_at: expiresAt } : {},
    );
    this.log(`apikey/${issued.name} created for account ${issued.account}`);
    this.log(`prefix:      ${issued.prefix}`);
    this.log(`expires:     ${issued.expires_at ?? 'never'}`);
    this.log(`api key:     ${issued.key}`);
    this.log('(the key is shown only now: sandbay stores only its SHA-256 hash)');
  }
}
