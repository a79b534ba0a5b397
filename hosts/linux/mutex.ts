// Serializes async work: one Mutex for a whole host, one lock per key (VM name) for its VMs.

export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` after every earlier `run` has settled; its result or error is passed through. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn, fn);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

export class KeyedMutex {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => T | Promise<T>): Promise<T> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    const result = prev.then(fn, fn);
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    // Forget idle keys so that the map does not grow with every VM name ever seen.
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
