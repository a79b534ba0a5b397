// One registry of every coded error the customer and admin APIs answer with, and the one error
// handler that turns anything thrown in a route into JSON `{error, message}`. Each code is
// documented in docs/api.md (a test checks that).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreError } from '../store/store.ts';
import { DriverError, type DriverErrorCode } from '../hosts/driver.ts';
import { EvaluationInputError } from '../operator/evaluation/validate.ts';
import { SANDBOX_FAILURES, type SandboxFailureCode } from '../operator/conditions.ts';
import { SCHEDULE_ERRORS, type ScheduleErrorCode } from '../operator/scheduler/errors.ts';

interface ErrorDefinition {
  status: number;
  message: string;
}

const API_ERRORS = {
  // 400: the request itself is wrong
  invalid_request: { status: 400, message: 'The request does not match the endpoint schema.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  invalid_idempotency_key: { status: 400, message: 'Idempotency-Key must be 1 to 255 bytes.' },
  reservation_id_required: {
    status: 400,
    message: 'The account has more than one active reservation: pass reservation_id.',
  },
  invalid_hours: { status: 400, message: 'A reservation edit may only add hours.' },
  invalid_argument: { status: 400, message: 'The sandbox refused an argument of the command.' },
  invalid_trajectory: { status: 400, message: 'The trajectory is neither valid ATIF nor sandbay-atif/1.' },
  invalid_port: { status: 400, message: 'A port is an integer from 1 to 65535.' },
  invalid_setup_step: { status: 400, message: 'A setup step is of an unknown type or malformed.' },
  invalid_grader: {
    status: 400,
    message: 'The grader, or one of its checks, is of an unknown type or malformed.',
  },
  invalid_evaluation_run: {
    status: 400,
    message: 'The evaluation run cannot be carried out as written (its mode, agent or tasks).',
  },
  cua_unknown_command: { status: 400, message: 'sandbay does not serve this command of the Cua protocol.' },
  // 401 / 402 / 403
  missing_api_key: { status: 401, message: 'Send Authorization: Bearer <key>.' },
  invalid_api_key: { status: 401, message: 'The key is invalid, revoked or expired.' },
  invalid_viewer_token: { status: 401, message: 'The viewer token is invalid or expired.' },
  insufficient_credit: { status: 402, message: 'The account balance does not cover this purchase.' },
  account_key_required: { status: 403, message: 'This endpoint needs the account key.' },
  sandbox_key_not_allowed: {
    status: 403,
    message: "An evaluation agent's sandbox key acts on its sandbox's computer-use routes only.",
  },
  csrf_token_invalid: {
    status: 403,
    message: 'A dashboard session request that changes something needs its X-CSRF-Token header.',
  },
  reservation_key_required: { status: 403, message: 'This endpoint needs a reservation key.' },
  quota_exceeded: { status: 403, message: "The account's quota for this resource is used up." },
  admin_tls_required: {
    status: 403,
    message: 'The admin key is accepted over plain HTTP only from loopback: use https.',
  },
  // 404
  not_found: { status: 404, message: 'No such endpoint.' },
  sandbox_not_found: { status: 404, message: 'Sandbox not found.' },
  reservation_not_found: { status: 404, message: 'Reservation not found.' },
  snapshot_not_found: { status: 404, message: 'Snapshot not found.' },
  recording_not_found: { status: 404, message: 'Recording not found.' },
  file_not_found: { status: 404, message: 'No such file in the sandbox.' },
  task_not_found: { status: 404, message: 'Task not found.' },
  step_not_found: { status: 404, message: 'The task has no screenshot for this step.' },
  replay_not_found: { status: 404, message: 'Replay not found.' },
  evaluation_run_not_found: { status: 404, message: 'Evaluation run not found.' },
  collection_not_found: { status: 404, message: 'The sandbox is not collecting a task.' },
  // The admin listener's account keys (api/routes/account-keys.ts)
  account_not_found: { status: 404, message: 'No such account.' },
  key_not_found: { status: 404, message: 'The account has no such key.' },
  blob_not_found: { status: 404, message: 'Blob not found.' },
  // 409: the request conflicts with the current state
  no_active_reservation: { status: 409, message: 'The account has no active reservation.' },
  reservation_not_active: { status: 409, message: 'The reservation is not active.' },
  reservation_not_editable: { status: 409, message: 'Only pending or active reservations can change.' },
  sandboxes_running: {
    status: 409,
    message: 'Delete every sandbox of the reservation before a layout change.',
  },
  minis_unavailable: { status: 409, message: 'Not enough Macs of this model are available now.' },
  sandbox_not_running: { status: 409, message: 'The sandbox is not running.' },
  not_an_evaluation_sandbox: {
    status: 409,
    message: 'The sandbox does not run an evaluation attempt: there is nothing to finish.',
  },
  sandbox_paused: {
    status: 409,
    message: 'The sandbox is paused: resume it first (POST /v1/sandboxes/{id}/resume).',
  },
  sandbox_not_paused: { status: 409, message: 'The sandbox is not paused.' },
  snapshot_not_ready: { status: 409, message: 'The snapshot is not ready.' },
  recording_in_progress: { status: 409, message: 'Stop the recording before downloading it.' },
  task_not_ready: { status: 409, message: 'The task is still recording or failed: it cannot be replayed.' },
  task_exists: { status: 409, message: 'A task with this id exists.' },
  task_already_recorded: { status: 409, message: 'The task has recorded steps: collect into a new task.' },
  collection_in_progress: { status: 409, message: 'The sandbox or the task is being collected.' },
  setup_script_failed: { status: 409, message: "The task's setup script failed: nothing was recorded." },
  setup_failed: { status: 409, message: 'A setup step of the task failed: nothing was recorded.' },
  idempotency_in_flight: { status: 409, message: 'A request with this Idempotency-Key is still in flight.' },
  conflict: { status: 409, message: 'The resource changed meanwhile; retry.' },
  key_ambiguous: { status: 409, message: "The prefix names several keys: give the key's name." },
  // 408 / 413 / 415 / 422 / 426 / 429 / 431
  request_timeout: { status: 408, message: 'The request did not arrive in time.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  clipboard_too_large: {
    status: 413,
    message: 'Clipboard content over its limit (1 MiB of text, 8 MiB of PNG); nothing was changed.',
  },
  unsupported_media_type: { status: 415, message: 'Unsupported Content-Type for this endpoint.' },
  task_not_exportable: {
    status: 422,
    message: 'The task cannot be written as a Harbor task directory (the message names the check or step).',
  },
  task_unsupported: {
    status: 422,
    message:
      'The benchmark task uses a step, getter or metric sandbay cannot run exactly (the message names it).',
  },
  idempotency_key_reused: {
    status: 422,
    message: 'The Idempotency-Key was used with a different path, body or reservation.',
  },
  upgrade_required: { status: 426, message: 'This endpoint is a WebSocket: send Upgrade: websocket.' },
  rate_limited: { status: 429, message: 'Too many requests for this key; retry later.' },
  too_many_connections: {
    status: 429,
    message:
      'Too many open WebSocket connections (VNC, SSH, Cua, exec streams, forwarded ports); close one first.',
  },
  too_many_auth_failures: {
    status: 429,
    message: 'Too many failed authentications from this address; retry after Retry-After seconds.',
  },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  // 5xx: the service or the sandbox failed
  internal_error: { status: 500, message: 'Internal error.' },
  sandbox_type_not_supported: { status: 501, message: 'sandbay runs macOS sandboxes only.' },
  feature_not_supported: {
    status: 501,
    message: "The sandbox's host or guest system does not offer this (the message says which and why).",
  },
  artifact_unavailable: { status: 500, message: "A task's screenshot or recording is missing from storage." },
  sandbox_failed: { status: 502, message: 'The sandbox failed to start.' },
  snapshot_failed: { status: 502, message: 'The snapshot transfer, apply or startup failed.' },
  snapshot_capture_failed: { status: 502, message: 'The disk delta could not be captured from the sandbox.' },
  guest_unreachable: { status: 502, message: 'The sandbox VM did not answer.' },
  guest_command_failed: { status: 502, message: 'A command in the sandbox VM failed.' },
  pause_failed: { status: 502, message: 'The sandbox could not be paused; it runs on.' },
  resume_failed: { status: 502, message: 'The sandbox could not be resumed; it stays paused.' },
  port_closed: { status: 502, message: 'Nothing in the sandbox accepts connections on this port.' },
  pricing_unavailable: { status: 503, message: 'No rate is configured for this Mac model.' },
  server_shutting_down: { status: 503, message: 'The server is shutting down; retry.' },
  dashboard_not_built: { status: 503, message: 'The dashboard is not built: run `npm run dashboard`.' },
  insufficient_storage: {
    status: 507,
    message: "The service's storage is nearly full: new snapshots, recordings and uploads are refused.",
  },
  guest_timeout: { status: 504, message: 'The sandbox VM did not answer in time.' },
  operation_timeout: { status: 504, message: 'The operation did not finish before its deadline.' },
} as const satisfies Record<string, ErrorDefinition>;

function fromSummaries<C extends string>(
  table: Record<C, { status: number; summary: string }>,
): Record<C, ErrorDefinition> {
  const out = {} as Record<C, ErrorDefinition>;
  for (const code of Object.keys(table) as C[])
    out[code] = { status: table[code].status, message: `${table[code].summary}.` };
  return out;
}

/**
 * The codes a refusal or a failure is reported with in `Sandbox.status.reason` keep the status
 * their owner gives them: the scheduler (capacity, size, snapshot base) and the sandbox reconciler
 * (boot, host, snapshot restore failures). The API's own entries win where a code is shared.
 */
export const ERRORS: Record<
  keyof typeof API_ERRORS | ScheduleErrorCode | SandboxFailureCode,
  ErrorDefinition
> = {
  ...fromSummaries(SANDBOX_FAILURES),
  ...fromSummaries(SCHEDULE_ERRORS),
  ...API_ERRORS,
};

export type ErrorCode = keyof typeof ERRORS;

/** The body of every error response. */
export interface ErrorBody {
  error: string;
  message: string;
}

/** A coded error: thrown anywhere in a route, answered by the error handler as JSON. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Sent as a Retry-After header (seconds) when set. */
  retryAfterS?: number;

  constructor(code: ErrorCode, message?: string) {
    super(message ?? ERRORS[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERRORS[code].status;
  }

  toJSON(): ErrorBody {
    return { error: this.code, message: this.message };
  }
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

const DRIVER_ERRORS: Record<DriverErrorCode, ErrorCode> = {
  unreachable: 'guest_unreachable',
  not_found: 'file_not_found',
  invalid_argument: 'invalid_argument',
  missing_tool: 'guest_command_failed',
  command_failed: 'guest_command_failed',
  timeout: 'guest_timeout',
  capacity: 'insufficient_capacity',
  refused: 'port_closed',
  not_supported: 'feature_not_supported',
  too_large: 'clipboard_too_large',
};

const FASTIFY_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_VALIDATION: 'invalid_request',
  // The router's own refusals (`frameworkErrors`): a path that does not decode, a path parameter
  // longer than the router keeps (100 characters; no id is that long).
  FST_ERR_BAD_URL: 'invalid_request',
  FST_ERR_MAX_PARAM_LENGTH: 'invalid_request',
  // @fastify/static (the /docs page's files) refuses a path with a NUL byte or `..` as 403.
  FST_STATIC_FORBIDDEN_PATH: 'not_found',
};

/** Maps anything thrown to the ApiError it answers as; unknown failures become `internal_error`. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DriverError) return new ApiError(DRIVER_ERRORS[err.code], err.message);
  if (err instanceof EvaluationInputError) return new ApiError(err.code, err.message);
  if (isStoreError(err)) {
    if (err.code === 'NotFound') return new ApiError('not_found', err.message);
    if (err.code === 'Conflict' || err.code === 'AlreadyExists') return new ApiError('conflict');
    if (err.code === 'Invalid' || err.code === 'BadRequest')
      return new ApiError('invalid_request', err.message);
    return new ApiError('internal_error');
  }
  const fe = err as Partial<FastifyError> | undefined;
  if (fe?.validation) return new ApiError('invalid_request', fe.message);
  const mapped = fe?.code ? FASTIFY_ERRORS[fe.code] : undefined;
  if (mapped)
    return new ApiError(mapped, mapped === 'invalid_json' ? ERRORS.invalid_json.message : fe?.message);
  if (fe?.statusCode === 429) return new ApiError('rate_limited');
  if (err instanceof SyntaxError) return new ApiError('invalid_json');
  // Another library's refusal of the request (a 4xx of its own) is the client's fault, not ours.
  if (fe?.code && fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500)
    return new ApiError(fe.statusCode === 404 ? 'not_found' : 'invalid_request', fe.message);
  return new ApiError('internal_error');
}

/** The one error handler: logs server-side failures once, answers JSON `{error, message}`. */
export function errorHandler(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const apiErr = toApiError(err);
  if (apiErr.code === 'internal_error') request.log.error({ err }, 'request failed');
  else if (apiErr.status >= 500) request.log.warn({ code: apiErr.code }, apiErr.message);
  else request.log.info({ code: apiErr.code }, apiErr.message);
  if (apiErr.retryAfterS !== undefined) reply.header('retry-after', String(apiErr.retryAfterS));
  return reply.code(apiErr.status).type('application/json; charset=utf-8').send(apiErr.toJSON());
}

export function notFoundHandler(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).send(new ApiError('not_found').toJSON());
}
