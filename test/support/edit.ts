// A test's edit of a stored object as a client makes it: read, change, write back with the read
// resourceVersion, and on a conflict read and change it again (client-go's RetryOnConflict). A
// reconciler may write the object (its status, mostly) between the read and the write; a bare
// read-then-update then fails on the operator's timing, not on the behaviour under test.
import type { AnyResource } from '../../crds/index.ts';
import { isStoreError, type ObjectKey, type Store } from '../../store/store.ts';

export async function edit<T extends AnyResource>(
  store: Store,
  key: ObjectKey,
  change: (obj: T) => T,
  attempts = 10,
): Promise<T> {
  for (let i = 1; ; i++) {
    const current = await store.get<T>(key);
    if (!current) throw new Error(`${key.kind} ${key.namespace ?? ''}/${key.name} does not exist`);
    try {
      return await store.update<T>(change(current));
    } catch (err) {
      if (!isStoreError(err, 'Conflict') || i >= attempts) throw err;
    }
  }
}
