// The agent endpoint contract (docs/evaluation.md, "The agent endpoint"): for each attempt sandbay
// POSTs the attempt to the lab's URL, with the sandbox's id, the instruction, where sandbay's API is
// and a key that acts on that one sandbox until the attempt's deadline. The agent drives the sandbox
// through the API with that key (every call recorded as the attempt's trajectory) and says it is done
// by answering `{"done": true}`, or later by `POST /v1/sandboxes/{id}/done`. Its time is bounded
// (`agent.timeoutS`): then the sandbox is graded as it stands.
//
// The endpoint is a tenant's URL called from inside the control plane: it goes through the same
// guard as a download step's (public addresses only unless the operator allows more; fetch-url.ts).
// The call is made at most once per attempt (its time is written before the call), so no two agents
// ever act on one sandbox; an agent that wants to know the call is sandbay's calls sandbay with the
// key it was given (a forged call's key works nowhere).
import { createHash, randomBytes } from 'node:crypto';
import { API_VERSION, type ApiKey } from '../../../crds/index.ts';
import { isStoreError } from '../../../store/store.ts';
import type { OperatorContext } from '../../context.ts';
import { FetchRefusedError, postJson } from '../fetch-url.ts';

/** What sandbay sends (JSON) to the agent endpoint. */
export interface AgentRequest {
  run_id: string;
  attempt_id: string;
  task_id: string;
  attempt: number;
  instruction: string;
  category: string | null;
  sandbox_id: string;
  /** The sandbay API the agent calls, e.g. `https://sandbay.example.com`. */
  api_url: string;
  /** Bearer key acting on `sandbox_id` only, until `deadline`. */
  api_key: string;
  deadline: string;
  /** Where to say it is done: `POST` with `{outcome?, message?}` and the key. */
  done_url: string;
}

export type AgentAnswer = { ok: true; status: number; done: boolean } | { ok: false; message: string };

/** A new agent key: the plaintext (sent once to the agent, never stored) and its ApiKey. */
export function agentKey(account: string, sandbox: string, expiresAt: string) {
  const plaintext = `sbk_${randomBytes(24).toString('base64url')}`;
  const sha256 = createHash('sha256').update(plaintext).digest('hex');
  const resource: ApiKey = {
    apiVersion: API_VERSION,
    kind: 'ApiKey',
    metadata: { name: `k-${sha256.slice(0, 40)}`, labels: { 'sandbay.io/key-kind': 'sandbox' } },
    spec: {
      kind: 'sandbox',
      account,
      sandbox: `${account}/${sandbox}`,
      sha256,
      prefix: plaintext.slice(0, 12),
      revoked: false,
      expiresAt,
    },
  };
  return { plaintext, resource };
}

/** Deletes an agent key (its attempt is over); gone already is fine. */
export async function dropAgentKey(ctx: OperatorContext, name: string | undefined): Promise<void> {
  if (!name) return;
  try {
    await ctx.client.delete({ kind: 'ApiKey', name });
  } catch (err) {
    if (!isStoreError(err, 'NotFound')) throw err;
  }
}

/**
 * Calls the endpoint and waits for its answer until `deadlineMs` (epoch ms, real time): 2xx is
 * taken (`{"done": true}` in the body: it finished already), anything else is the attempt's error.
 */
export async function callAgent(
  ctx: OperatorContext,
  url: string,
  request: AgentRequest,
  idempotencyKey: string,
  deadlineMs: number,
): Promise<AgentAnswer> {
  const signal = AbortSignal.timeout(Math.max(1, deadlineMs - Date.now()));
  let answer: { status: number; text: string };
  try {
    answer = await postJson(
      url,
      request,
      { 'user-agent': 'sandbay-evaluation/1', 'idempotency-key': idempotencyKey },
      ctx.settings.setupFetch,
      signal,
    );
  } catch (err) {
    if (err instanceof FetchRefusedError)
      return { ok: false, message: `refused to call ${url}: ${err.message}` };
    if (signal.aborted)
      return { ok: false, message: `the agent endpoint did not answer before the deadline` };
    return { ok: false, message: `calling the agent endpoint failed: ${(err as Error).message}` };
  }
  if (answer.status < 200 || answer.status >= 300)
    return {
      ok: false,
      message: `the agent endpoint answered ${answer.status}${answer.text ? `: ${answer.text.trim().slice(0, 300)}` : ''}`,
    };
  return { ok: true, status: answer.status, done: saysDone(answer.text) };
}

function saysDone(text: string): boolean {
  try {
    const body = JSON.parse(text) as unknown;
    return typeof body === 'object' && body !== null && (body as { done?: unknown }).done === true;
  } catch {
    return false;
  }
}
