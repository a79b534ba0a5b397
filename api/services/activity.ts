// Sandbox activity: every authenticated request on a sandbox, and every open SSH or VNC connection,
// moves `status.lastActive` forward; the idle reaper destroys ephemeral sandboxes that stay quiet.
// Status is otherwise written by reconcilers only; lastActive is the one exception, because it is an
// observation only the API can make. It is written as a merge patch of that single field (so it
// never races a reconciler's other fields) and at most once per THROTTLE_MS per sandbox.
import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../../operator/runtime/clock.ts';

export const ACTIVITY_THROTTLE_MS = 5_000;

export class ActivityTracker {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  /** `namespace/name` → when lastActive was last written. */
  readonly #written = new Map<string, number>();

  constructor(store: Store, clock: Clock, log: FastifyBaseLogger) {
    this.#store = store;
    this.#clock = clock;
    this.#log = log;
  }

  /**
   * Records activity on a sandbox. Throttled unless `force` (keepalive): a throttled call costs a
   * map lookup and returns undefined. Otherwise resolves once written; a failure is logged, never
   * thrown, since activity must not fail the request that caused it.
   */
  touch(namespace: string, name: string, force = false): Promise<Date> | undefined {
    const now = this.#clock.now();
    const key = `${namespace}/${name}`;
    const last = this.#written.get(key);
    if (!force && last !== undefined && now - last < ACTIVITY_THROTTLE_MS) return undefined;
    this.#written.set(key, now);
    return this.#write(namespace, name, key, now);
  }

  async #write(namespace: string, name: string, key: string, now: number): Promise<Date> {
    const at = new Date(now);
    try {
      await this.#store.patch(
        { kind: 'Sandbox', namespace, name },
        { status: { lastActive: at.toISOString() } },
        { subresource: 'status' },
      );
    } catch (err) {
      this.#written.delete(key);
      this.#log.warn({ err, sandbox: key }, 'could not record sandbox activity');
    }
    this.#prune(now);
    return at;
  }

  /** Forgets sandboxes not touched for a while, so the map stays as small as the active set. */
  #prune(now: number): void {
    if (this.#written.size < 1024) return;
    for (const [key, at] of this.#written)
      if (now - at > 10 * ACTIVITY_THROTTLE_MS) this.#written.delete(key);
  }
}
