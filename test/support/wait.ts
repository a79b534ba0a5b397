// Waiting in tests: on a predicate with a deadline, never a sleep. Shared by the API harness and the
// operator fixtures (and every test that imports them).

/** Resolves with the first truthy value of `probe`; throws after `timeoutMs` saying what was awaited. */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
