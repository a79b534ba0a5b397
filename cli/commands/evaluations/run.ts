import { setTimeout as sleep } from 'node:timers/promises';
import { Args, Flags } from '@oclif/core';
import { CustomerApi, CustomerCommand, urlFlag } from '../shared/customer-api.ts';
import { resultsText, type ResultsAnswer, type RunAnswer } from './results-table.ts';

/** `sandbay evaluations run TASK… --mode replay|agent`: starts an evaluation run, waits, prints its results. */
export default class EvaluationsRun extends CustomerCommand {
  static override summary = 'Run tasks K times each and print every attempt’s outcome and the pass rate.';
  static override description =
    'POST /v1/me/evaluation-runs with the tasks given, then polls the run until it has ended and prints ' +
    'its results (GET …/results), one line per attempt. --no-wait prints the run id and returns. The key: ' +
    'SANDBAY_API_KEY (an account key). The customer API: --url, else SANDBAY_URL.';
  static override examples = [
    '<%= config.bin %> evaluations run greets tidy --mode replay --attempts 3',
    '<%= config.bin %> evaluations run greets --mode agent --agent-url http://10.0.0.5:9000/act',
  ];

  static override strict = false;
  static override args = {
    task: Args.string({ description: 'the task ids (one or more)', required: true }),
  };

  static override flags = {
    mode: Flags.string({
      options: ['replay', 'agent'],
      required: true,
      description: 'who acts on each attempt',
    }),
    attempts: Flags.integer({ min: 1, description: 'attempts of each task (K; default 1)' }),
    'agent-url': Flags.string({
      description: 'the agent endpoint sandbay POSTs each attempt to (mode agent)',
    }),
    'agent-timeout': Flags.integer({ min: 1, description: 'seconds the agent may act on one attempt' }),
    reservation: Flags.string({ description: 'the reservation whose Macs run it (default: the only one)' }),
    concurrency: Flags.integer({ min: 1, description: 'at most this many attempts at once' }),
    wait: Flags.boolean({ default: true, allowNo: true, description: 'wait for the run to end (default)' }),
    csv: Flags.boolean({ description: 'print the results as CSV instead of a table' }),
    url: urlFlag,
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(EvaluationsRun);
    const api = new CustomerApi(this, flags.url);
    const agentUrl = flags['agent-url'];
    if (flags.mode === 'agent' && !agentUrl) this.error('--mode agent needs --agent-url');
    const run = await api.json<RunAnswer>('POST', '/v1/me/evaluation-runs', {
      tasks: argv as string[],
      mode: flags.mode,
      ...(flags.attempts !== undefined && { attempts: flags.attempts }),
      ...(agentUrl !== undefined && {
        agent: {
          url: agentUrl,
          ...(flags['agent-timeout'] !== undefined && { timeout_s: flags['agent-timeout'] }),
        },
      }),
      ...(flags.reservation !== undefined && { reservation_id: flags.reservation }),
      ...(flags.concurrency !== undefined && { concurrency: flags.concurrency }),
    });
    if (!flags.wait) {
      process.stdout.write(`${run.id}\n`);
      return;
    }
    process.stderr.write(`${run.id}: ${run.counts.total} attempts\n`);
    const path = `/v1/me/evaluation-runs/${encodeURIComponent(run.id)}`;
    let now = run;
    while (now.status !== 'completed' && now.status !== 'cancelled') {
      await sleep(1000);
      now = await api.json<RunAnswer>('GET', path);
    }
    if (flags.csv) {
      process.stdout.write(await (await api.call('GET', `${path}/results.csv`)).text());
      return;
    }
    process.stdout.write(resultsText(now, await api.json<ResultsAnswer>('GET', `${path}/results`)));
  }
}
