// The 24-hour minimums: an EC2 Dedicated Host is billed for 24 hours from allocation, and Apple's licence
// makes Scaleway lease an Apple silicon server for 24 hours at least. Replacing or destroying one sooner
// pays for a day and gets nothing, so the program refuses unless the stack sets `force: true`.

export const LEASE_MINIMUM_MS = 24 * 60 * 60 * 1000;

export interface Lease {
  /** `aws-dedicated-host` or `scaleway-server`: what is billed for a day at least. */
  kind: string;
  /** When the host was allocated (ISO-8601), as recorded in the stack's state. */
  allocatedAt: string;
}

/** Why `what` may not go yet, or undefined when its minimum has passed (or `force` is set). */
export function leaseRefusal(what: string, lease: Lease, now: Date, force: boolean): string | undefined {
  if (force) return undefined;
  const allocated = Date.parse(lease.allocatedAt);
  if (Number.isNaN(allocated)) return undefined;
  const until = allocated + LEASE_MINIMUM_MS;
  if (now.getTime() >= until) return undefined;
  const hours = ((until - now.getTime()) / 3_600_000).toFixed(1);
  return (
    `${what}: the ${lease.kind} was allocated at ${lease.allocatedAt} and is billed for 24 hours at least ` +
    `(${hours} h left, until ${new Date(until).toISOString()}); replacing or removing it now pays for a day ` +
    'and gains nothing. Wait, or set `pulumi config set force true` and run `pulumi up` first to record it'
  );
}
