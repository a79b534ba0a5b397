// Typed errors. Every API error is JSON `{error, message}`: SandbayError carries that code (the
// docs/api.md registry), so callers branch on `err.code`, never on message text.

/** An error answer of the API (status ≥ 400). */
export class SandbayError extends Error {
  override readonly name: string = 'SandbayError';
  /** HTTP status. */
  readonly status: number;
  /** The API's error code, e.g. `sandbox_not_found`, `no_warm_vm` (`http_<status>` if the body had none). */
  readonly code: string;
  /** The `x-request-id` of the answer: the server logs it with every line of the request. */
  readonly requestId: string | undefined;
  constructor(status: number, code: string, message: string, requestId: string | undefined) {
    super(message);
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

/** The call did not finish within its timeout (the request was aborted). */
export class SandbayTimeoutError extends Error {
  override readonly name: string = 'SandbayTimeoutError';
  readonly code = 'timeout';
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number) {
    super(message);
    this.timeoutMs = timeoutMs;
  }
}

/** No answer: the connection failed or was reset (after the retries the call allowed). */
export class SandbayConnectionError extends Error {
  override readonly name: string = 'SandbayConnectionError';
  readonly code = 'connection_failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Builds the error of a non-2xx answer from its JSON body (or its status when it has none). */
export async function errorOf(res: Response): Promise<SandbayError> {
  const text = await res.text().catch(() => '');
  let code = `http_${res.status}`;
  let message = text || res.statusText;
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not JSON (a proxy's page): the status code and the raw text say what happened.
  }
  return new SandbayError(res.status, code, message, res.headers.get('x-request-id') ?? undefined);
}
