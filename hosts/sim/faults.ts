// Failure injection: whole hosts that stop answering, and one-shot failures of a named operation.
import { DriverError, type DriverErrorCode, type Guest, type Host } from '../driver.ts';

/** Every operation the sim can be told to fail: host lifecycle calls and guest calls. */
export type SimOp = Exclude<keyof Host, 'guest'> | keyof Guest;

export interface FailNextOptions {
  /** Only a call on this host address (default: the next call on any host). */
  address?: string;
  code?: DriverErrorCode;
  message?: string;
}

interface Pending {
  op: SimOp;
  address?: string;
  error: DriverError;
}

export class Faults {
  readonly #failedHosts = new Set<string>();
  #pending: Pending[] = [];

  failHost(address: string): void {
    this.#failedHosts.add(address);
  }

  recoverHost(address: string): void {
    this.#failedHosts.delete(address);
  }

  isFailed(address: string): boolean {
    return this.#failedHosts.has(address);
  }

  failNext(op: SimOp, opts: FailNextOptions = {}): void {
    const error = new DriverError(
      opts.code ?? 'command_failed',
      opts.message ?? `injected failure of ${op}`,
      op,
    );
    this.#pending.push({ op, error, ...(opts.address !== undefined && { address: opts.address }) });
  }

  /** Throws if the host is failed, or if a failure of `op` is pending for it (consuming it). */
  check(address: string, op: SimOp): void {
    this.throwIfUnreachable(address, op);
    const i = this.#pending.findIndex(
      (p) => p.op === op && (p.address === undefined || p.address === address),
    );
    if (i < 0) return;
    const [pending] = this.#pending.splice(i, 1);
    throw pending!.error;
  }

  throwIfUnreachable(address: string, op: string): void {
    if (this.#failedHosts.has(address))
      throw new DriverError('unreachable', `host ${address} does not answer`, op);
  }
}
