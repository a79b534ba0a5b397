// The CLI's commands, by id (oclif's explicit strategy: `sandbay accounts create` is `accounts:create`).
import AccountsCreate from './commands/accounts/create.ts';
import Api from './commands/api.ts';
import Apply from './commands/apply.ts';
import Delete from './commands/delete.ts';
import Describe from './commands/describe.ts';
import Get from './commands/get.ts';
import Operator from './commands/operator.ts';
import Server from './commands/server.ts';

export const COMMANDS = {
  server: Server,
  api: Api,
  operator: Operator,
  apply: Apply,
  get: Get,
  describe: Describe,
  delete: Delete,
  'accounts:create': AccountsCreate,
};
