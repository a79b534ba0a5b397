// Waiting in tests: on a predicate with a deadline, never a sleep. Shared by the API harness and the
// operator fixtures (and every test that imports them).

/**
 * Resolves with the first truthy value of `probe`; throws after `timeoutMs` saying what was awaited
 * (`what` as a function: asked at the deadline, to say also what was seen instead).
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string | (() => string),
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) {
      const said = typeof what === 'function' ? what() : what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${said}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
