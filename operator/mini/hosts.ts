// One Host handle per Mini, from the driver its spec names. Handles are cached by name and
// replaced when the Mini's address, model, driver, credentials or VM slots change.
import { macShape, type DriverKind, type Mini } from '../../crds/index.ts';
import { DriverError, type Driver, type Host, type HostRef } from '../../hosts/driver.ts';
import { withDeadlines } from '../../hosts/guest-deadlines.ts';

export type Drivers = Partial<Record<DriverKind, Driver>>;

export class HostRegistry {
  readonly #drivers: Drivers;
  readonly #hosts = new Map<string, { fingerprint: string; host: Host }>();

  constructor(drivers: Drivers) {
    this.#drivers = drivers;
  }

  /** The Host of a Mini; throws DriverError `invalid_argument` when its driver is not configured. */
  host(mini: Mini): Host {
    const { name } = mini.metadata;
    const { driver } = mini.spec;
    const ref = hostRef(mini);
    const fingerprint = JSON.stringify([driver, ref]);
    const cached = this.#hosts.get(name);
    if (cached && cached.fingerprint === fingerprint) return cached.host;
    const d = this.#drivers[driver];
    if (!d) throw new DriverError('invalid_argument', `no ${driver} driver is configured for Mini ${name}`);
    const host = boundedGuests(d.host(ref));
    this.#hosts.set(name, { fingerprint, host });
    return host;
  }

  forget(name: string): void {
    this.#hosts.delete(name);
  }

  hasDriver(kind: DriverKind): boolean {
    return this.#drivers[kind] !== undefined;
  }
}

/** What a driver needs of a Mini to reach its Mac. */
export function hostRef(mini: Mini): HostRef {
  const { address, model, credentialsRef } = mini.spec;
  const { vmSlots } = macShape(mini.spec);
  return {
    name: mini.metadata.name,
    address,
    model,
    ...(credentialsRef !== undefined && { credentialsRef }),
    ...(vmSlots !== undefined && { vmSlots }),
  };
}

/** `host` whose guests bound every call (hosts/guest-deadlines.ts): replays and the reaper wait on tenants. */
function boundedGuests(host: Host): Host {
  return new Proxy(host, {
    get(target, prop, receiver) {
      if (prop === 'guest') return (vm: string) => withDeadlines(target.guest(vm));
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** True when an error means the host did not answer (mark it down rather than fail the work). */
export function isUnreachable(err: unknown): boolean {
  return err instanceof DriverError && (err.code === 'unreachable' || err.code === 'timeout');
}

/** Rejects with DriverError `timeout` when `work` takes longer than `ms`. */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DriverError('timeout', `${what} did not answer within ${ms} ms`)),
      ms,
    );
    timer.unref();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
