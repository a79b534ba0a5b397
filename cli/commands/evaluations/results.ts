import { Args, Flags } from '@oclif/core';
import { CustomerApi, CustomerCommand, urlFlag } from '../shared/customer-api.ts';
import { resultsText, type ResultsAnswer, type RunAnswer } from './results-table.ts';

/** `sandbay evaluations results RUN`: a run's results so far (or as CSV). */
export default class EvaluationsResults extends CustomerCommand {
  static override summary = 'Print an evaluation run’s results: every attempt’s outcome and the pass rate.';
  static override description =
    'GET /v1/me/evaluation-runs/RUN/results (or results.csv with --csv). A running run shows its ' +
    'attempts so far. The key: SANDBAY_API_KEY (an account key). The customer API: --url, else SANDBAY_URL.';
  static override examples = [
    '<%= config.bin %> evaluations results ev-8a541fd280fc6d9a --csv > results.csv',
  ];

  static override args = {
    run: Args.string({ description: 'the run id', required: true }),
  };

  static override flags = {
    csv: Flags.boolean({ description: 'print the results as CSV instead of a table' }),
    url: urlFlag,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(EvaluationsResults);
    const api = new CustomerApi(this, flags.url);
    const path = `/v1/me/evaluation-runs/${encodeURIComponent(args.run)}`;
    if (flags.csv) {
      process.stdout.write(await (await api.call('GET', `${path}/results.csv`)).text());
      return;
    }
    const run = await api.json<RunAnswer>('GET', path);
    process.stdout.write(resultsText(run, await api.json<ResultsAnswer>('GET', `${path}/results`)));
  }
}
