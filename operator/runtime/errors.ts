// Errors a reconcile can throw. Anything else is retried with backoff; a TerminalError is not,
// because retrying cannot help (bad input, a state that only a new spec can change).

export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

export function isTerminalError(err: unknown): err is TerminalError {
  return err instanceof TerminalError;
}
