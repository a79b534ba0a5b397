// The CLI's commands, by id (oclif's explicit strategy: `sandbay accounts create` is `accounts:create`).
import AccountsCreate from './commands/accounts/create.ts';
import AccountsKeysCreate from './commands/accounts/keys/create.ts';
import AccountsKeysList from './commands/accounts/keys/list.ts';
import AccountsKeysRevoke from './commands/accounts/keys/revoke.ts';
import Apply from './commands/apply.ts';
import Delete from './commands/delete.ts';
import Describe from './commands/describe.ts';
import Get from './commands/get.ts';
import Server from './commands/server.ts';

export const COMMANDS = {
  server: Server,
  apply: Apply,
  get: Get,
  describe: Describe,
  delete: Delete,
  'accounts:create': AccountsCreate,
  'accounts:keys:create': AccountsKeysCreate,
  'accounts:keys:list': AccountsKeysList,
  'accounts:keys:revoke': AccountsKeysRevoke,
};
