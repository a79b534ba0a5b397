import { Args } from '@oclif/core';
import { AdminCommand } from '../../shared/admin-command.ts';
import { type AccountKeyWire, accountKeysPath } from '../../shared/account-keys.ts';

export default class AccountsKeysList extends AdminCommand {
  static override summary = "List an account's API keys (names and prefixes; never a secret).";
  static override examples = ['<%= config.bin %> accounts keys list acme'];
  static override args = { account: Args.string({ description: 'account name', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AccountsKeysList);
    const keys = await this.connect(flags).admin<AccountKeyWire[]>('GET', accountKeysPath(args.account));
    const rows = [
      ['NAME', 'PREFIX', 'STATE', 'CREATED', 'EXPIRES'],
      ...keys.map((k) => [
        k.name,
        k.prefix,
        k.revoked ? 'revoked' : 'active',
        k.created_at,
        k.expires_at ?? 'never',
      ]),
    ];
    const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
    for (const r of rows)
      this.log(
        r
          .map((cell, col) => cell.padEnd(widths[col]!))
          .join('   ')
          .trimEnd(),
      );
  }
}
