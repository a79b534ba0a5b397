// Evaluation runs (docs/evaluation.md, "Evaluation runs"): the account's runs with their counts, and
// a run's results: pass rate per task and per category, then each attempt with its reward and why,
// its trajectory linked, and the CSV download. Runs are started through the API (or the SDK).
import type { EvaluationRun, EvaluationRunResults } from '../../../../sdk/typescript/src/index.ts';
import { client, when } from '../api.ts';
import { Link } from '../router.tsx';
import { Empty, Show, useLoad } from '../ui.tsx';

export function EvaluationsPage(props: { path: string }) {
  const detail = /^\/evaluations\/(ev-[0-9a-f]{16})$/.exec(props.path);
  if (detail) return <RunResults id={detail[1]!} />;
  return <RunList />;
}

const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10} %`);
const reward = (r: number | null) => (r === null ? '—' : String(Math.round(r * 1000) / 1000));

function RunList() {
  const [runs, reload] = useLoad(() => client.evaluationRuns.list());
  return (
    <>
      <h1>Evaluations</h1>
      <p class="lead">
        Runs of your tasks: each task attempted K times on a fresh sandbox, by your agent endpoint or a replay
        of its recorded actions. Start one with <code>POST /v1/me/evaluation-runs</code>.
      </p>
      <Show value={runs} what="evaluation runs" retry={reload}>
        {(list) =>
          list.length === 0 ? <Empty>No evaluation run yet.</Empty> : <RunTable runs={[...list].reverse()} />
        }
      </Show>
    </>
  );
}

function RunTable(props: { runs: EvaluationRun[] }) {
  return (
    <div class="table-wrap">
      <table data-testid="evaluation-runs">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Mode</th>
            <th scope="col">Status</th>
            <th scope="col">Tasks × attempts</th>
            <th scope="col">Passed</th>
            <th scope="col">Failed</th>
            <th scope="col">Errored</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {props.runs.map((r) => (
            <tr key={r.id} data-id={r.id}>
              <td>
                <Link href={`/evaluations/${r.id}`}>{r.id}</Link>
              </td>
              <td>{r.mode}</td>
              <td>
                <span class={`badge ${r.status}`}>{r.status}</span>
              </td>
              <td>
                {r.tasks.length} × {r.attempts}
              </td>
              <td>{r.counts.passed}</td>
              <td>{r.counts.failed}</td>
              <td>{r.counts.errored}</td>
              <td>{when(r.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunResults(props: { id: string }) {
  const [results, reload] = useLoad(() => client.evaluationRuns.results(props.id), [props.id]);
  return (
    <Show value={results} what="the results" retry={reload}>
      {(r) => <ResultsView results={r} reload={reload} />}
    </Show>
  );
}

function ResultsView(props: { results: EvaluationRunResults; reload: () => void }) {
  const { run, rows, by_task, by_category, overall } = props.results;
  return (
    <>
      <h1>
        Evaluation {run.id} <span class={`badge ${run.status}`}>{run.status}</span>
      </h1>
      <p class="lead">
        {run.message ?? ''} Overall pass rate: <strong>{percent(overall.pass_rate)}</strong>.
      </p>
      <p>
        <a href={`/v1/me/evaluation-runs/${run.id}/results.csv`} download>
          Download CSV
        </a>{' '}
        <button type="button" onClick={props.reload}>
          Refresh
        </button>
      </p>
      <h2>Pass rate per category</h2>
      <RateTable id="by-category" label="Category" rates={by_category} />
      <h2>Pass rate per task</h2>
      <RateTable id="by-task" label="Task" rates={by_task} />
      <h2>Attempts</h2>
      <div class="table-wrap">
        <table data-testid="attempts">
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Attempt</th>
              <th scope="col">Outcome</th>
              <th scope="col">Reward</th>
              <th scope="col">Why</th>
              <th scope="col">Trajectory</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.task}/${row.attempt}`}>
                <td>{row.task}</td>
                <td>{row.attempt}</td>
                <td>
                  <span class={`badge ${row.outcome}`}>{row.outcome}</span>
                </td>
                <td>{reward(row.reward)}</td>
                <td>{row.message ?? '—'}</td>
                <td>
                  {row.trajectory_id ? (
                    <Link href={`/tasks/${row.trajectory_id}`}>{row.trajectory_id}</Link>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function RateTable(props: { id: string; label: string; rates: EvaluationRunResults['by_task'] }) {
  return (
    <div class="table-wrap">
      <table data-testid={props.id}>
        <thead>
          <tr>
            <th scope="col">{props.label}</th>
            <th scope="col">Attempts</th>
            <th scope="col">Passed</th>
            <th scope="col">Errored</th>
            <th scope="col">Pass rate</th>
            <th scope="col">Mean reward</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(props.rates).map(([name, r]) => (
            <tr key={name}>
              <td>{name}</td>
              <td>{r.attempts}</td>
              <td>{r.passed}</td>
              <td>{r.errored}</td>
              <td>{percent(r.pass_rate)}</td>
              <td>{reward(r.mean_reward)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
