// What the fuzzer holds every answer to: no 5xx, no hang past the deadline, an error answered as
// JSON `{error, message}` whose code is in the one registry (api/errors.ts; the Kubernetes API
// answers a `Status` instead, as Kubernetes clients expect), and nothing changed by a request that
// was refused (answered 4xx, or cut off without an answer).
import { ERRORS } from '../../../api/errors.ts';
import type { Exchange } from './http-exchange.ts';

export type ErrorShape = 'sandbay' | 'kube-status';

/** Whether the exchange is a refusal: nothing may have changed. */
export function refused(e: Exchange): boolean {
  return e.kind !== 'answer' || e.status >= 400;
}

/** What is wrong with the answer, or undefined. `shape`: which error body the path answers with. */
export function answerProblem(e: Exchange, method: string, shape: ErrorShape): string | undefined {
  if (e.kind === 'hang') return `no answer within ${Math.round(e.ms)} ms (${e.received} bytes received)`;
  if (e.kind === 'closed') return undefined; // a connection cut on a malformed request is an answer
  if (e.status >= 500) return `answered ${e.status}`;
  if (e.status < 400 || method === 'HEAD') return undefined;
  const type = e.headers['content-type'] ?? '';
  if (!/^application\/json\b/.test(type)) return `error ${e.status} is not JSON (content-type "${type}")`;
  let body: unknown;
  try {
    body = JSON.parse(e.body.toString('utf8'));
  } catch {
    return `error ${e.status} body does not parse as JSON`;
  }
  return shape === 'kube-status' ? statusProblem(body, e.status) : sandbayErrorProblem(body, e.status);
}

function sandbayErrorProblem(body: unknown, status: number): string | undefined {
  const { error, message } = (body ?? {}) as { error?: unknown; message?: unknown };
  if (typeof error !== 'string' || typeof message !== 'string')
    return `error ${status} is not {error, message}: ${JSON.stringify(body).slice(0, 200)}`;
  if (!(error in ERRORS)) return `error ${status} has a code outside api/errors.ts: "${error}"`;
  return undefined;
}

/** A Kubernetes `Status` (kind Status, status Failure, its code the HTTP status). */
function statusProblem(body: unknown, status: number): string | undefined {
  const s = (body ?? {}) as { kind?: unknown; status?: unknown; code?: unknown; message?: unknown };
  if (s.kind !== 'Status' || s.status !== 'Failure' || s.code !== status || typeof s.message !== 'string')
    return `error ${status} is not a Kubernetes Status: ${JSON.stringify(body).slice(0, 200)}`;
  return undefined;
}
