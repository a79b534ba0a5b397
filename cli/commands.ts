// The CLI's commands, by id (oclif's explicit strategy: `sandbay accounts create` is `accounts:create`).
import AccountsCreate from './commands/accounts/create.ts';
import AccountsKeysCreate from './commands/accounts/keys/create.ts';
import AccountsKeysList from './commands/accounts/keys/list.ts';
import AccountsKeysRevoke from './commands/accounts/keys/revoke.ts';
import Api from './commands/api.ts';
import Apply from './commands/apply.ts';
import Cordon from './commands/cordon.ts';
import Delete from './commands/delete.ts';
import Describe from './commands/describe.ts';
import Drain from './commands/drain.ts';
import EvaluationsResults from './commands/evaluations/results.ts';
import EvaluationsRun from './commands/evaluations/run.ts';
import Get from './commands/get.ts';
import HostReset from './commands/host/reset.ts';
import Mcp from './commands/mcp.ts';
import Operator from './commands/operator.ts';
import Pool from './commands/pool.ts';
import Server from './commands/server.ts';
import TasksExport from './commands/tasks/export.ts';
import Uncordon from './commands/uncordon.ts';

export const COMMANDS = {
  server: Server,
  api: Api,
  operator: Operator,
  apply: Apply,
  get: Get,
  describe: Describe,
  delete: Delete,
  cordon: Cordon,
  uncordon: Uncordon,
  drain: Drain,
  pool: Pool,
  'accounts:create': AccountsCreate,
  'accounts:keys:create': AccountsKeysCreate,
  'accounts:keys:list': AccountsKeysList,
  'accounts:keys:revoke': AccountsKeysRevoke,
  'host:reset': HostReset,
  mcp: Mcp,
  'tasks:export': TasksExport,
  'evaluations:run': EvaluationsRun,
  'evaluations:results': EvaluationsResults,
};
