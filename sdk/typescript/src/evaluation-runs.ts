// Evaluation runs: N tasks × an agent endpoint (or a replay) × K attempts, with their results table
// (`client.evaluationRuns.*`, account key; docs/evaluation.md, "Evaluation runs").
import type { Transport } from './http.ts';
import type { EvaluationRun, EvaluationRunCreateRequest, EvaluationRunResults } from './types.ts';

/** A run's statuses once it will change no more. */
const ENDED = new Set(['completed', 'cancelled']);

export class EvaluationRuns {
  readonly #t: Transport;
  constructor(t: Transport) {
    this.#t = t;
  }

  /** Starts a run: `{tasks, attempts?, mode, agent?: {url, timeout_s?}, reservation_id?, …}`. */
  create(body: EvaluationRunCreateRequest): Promise<EvaluationRun> {
    return this.#t.json('POST', '/v1/me/evaluation-runs', { json: body });
  }

  list(): Promise<EvaluationRun[]> {
    return this.#t.json('GET', '/v1/me/evaluation-runs');
  }

  get(id: string): Promise<EvaluationRun> {
    return this.#t.json('GET', `/v1/me/evaluation-runs/${encodeURIComponent(id)}`);
  }

  /** Each attempt's outcome, reward and why, with pass rates per task and per category. */
  results(id: string): Promise<EvaluationRunResults> {
    return this.#t.json('GET', `/v1/me/evaluation-runs/${encodeURIComponent(id)}/results`);
  }

  /** The results table as CSV text (one line per attempt). */
  async resultsCsv(id: string): Promise<string> {
    const bytes = await this.#t.bytes('GET', `/v1/me/evaluation-runs/${encodeURIComponent(id)}/results.csv`);
    return new TextDecoder().decode(bytes);
  }

  /** Polls a run until it has ended: `completed` (every attempt finished) or `cancelled`. */
  async wait(id: string, o: { timeoutMs?: number; pollMs?: number } = {}): Promise<EvaluationRun> {
    const deadline = Date.now() + (o.timeoutMs ?? 6 * 3600_000);
    for (;;) {
      const run = await this.get(id);
      if (ENDED.has(run.status)) return run;
      if (Date.now() > deadline) throw new Error(`evaluation run ${id} is still ${run.status}`);
      await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? 2000));
    }
  }

  /** Stops the run: no attempt starts any more, the running ones stop; the results stay. */
  cancel(id: string): Promise<EvaluationRun> {
    return this.#t.json('POST', `/v1/me/evaluation-runs/${encodeURIComponent(id)}/cancel`);
  }

  /** Deletes the run with its attempts, their sandboxes and trajectories. */
  delete(id: string): Promise<void> {
    return this.#t.none('DELETE', `/v1/me/evaluation-runs/${encodeURIComponent(id)}`);
  }
}
