import { randomUUID } from 'node:crypto';
import { Args, Flags } from '@oclif/core';
import { apiKeyResource, generateKey } from '../../../api/keys.ts';
import { AccountKind, API_VERSION, ApiKeyKind, type Account } from '../../../crds/index.ts';
import { AdminCommand } from '../shared/admin-command.ts';

/** An account's name is the namespace of its resources: a DNS-1123 label. */
const ACCOUNT_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export default class AccountsCreate extends AdminCommand {
  static override summary = 'Create a customer account with starting credit and an account API key.';
  static override description =
    'The account gets a fresh user id, a `grant` ledger entry for --credit-cents, and an account key. ' +
    'The key is printed once; only its SHA-256 is stored.';
  static override examples = [
    '<%= config.bin %> accounts create acme --credit-cents 50000 --display-name "Acme Inc."',
  ];
  static override args = {
    name: Args.string({ description: 'account name, also the namespace of its resources', required: true }),
  };
  static override flags = {
    'credit-cents': Flags.integer({ description: 'starting credit in cents', default: 0, min: 0 }),
    'display-name': Flags.string({ description: 'a name for people (default: the account name)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AccountsCreate);
    if (!ACCOUNT_NAME.test(args.name)) {
      throw new Error(`invalid account name "${args.name}": lower-case letters, digits and "-", at most 63`);
    }
    const client = this.connect(flags);
    const created = await client.create<Account>(AccountKind, {
      apiVersion: API_VERSION,
      kind: 'Account',
      metadata: { name: args.name },
      spec: { displayName: flags['display-name'] ?? args.name, userId: randomUUID() },
    });
    const credit = flags['credit-cents'];
    const ledger =
      credit > 0 ? [{ at: new Date().toISOString(), amountCents: credit, reason: 'grant' as const }] : [];
    await client.replaceStatus<Account>(AccountKind, {
      ...created,
      status: { balanceCents: credit, ledger },
    });
    const key = generateKey();
    await client.create(ApiKeyKind, apiKeyResource(key, { kind: 'account', account: args.name }));
    this.log(`account/${args.name} created`);
    this.log(`user id:     ${created.spec.userId}`);
    this.log(`credit:      ${credit} cents`);
    this.log(`api key:     ${key.plaintext}`);
    this.log('(the key is shown only now: sandbay stores only its SHA-256 hash)');
  }
}
