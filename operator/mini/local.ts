// The local machine as a Mac: with the linux driver, this machine is registered as one Mini whose
// VMs are real Linux desktops, so a reservation on a fresh install activates and its warm pool fills.
import {
  API_VERSION,
  DEFAULT_MAC_MODEL,
  DEFAULT_VM_LAYOUT,
  type MacModel,
  type Mini,
  type VmLayout,
} from '../../crds/index.ts';
import { isStoreError, type Store } from '../../store/store.ts';

export interface LocalMiniOptions {
  /** Resource name (default `local`). */
  name?: string;
  /** The model it poses as (default m4). */
  model?: MacModel;
  /** Layout while no reservation sets one (default split). */
  layout?: VmLayout;
  /** Default 127.0.0.1. */
  address?: string;
}

/** Creates the local Mini unless one of that name exists (an operator's edits to it are kept). */
export async function ensureLocalMini(store: Store, opts: LocalMiniOptions = {}): Promise<Mini> {
  const name = opts.name ?? 'local';
  const existing = await store.get<Mini>({ kind: 'Mini', name });
  if (existing) return existing;
  try {
    return await store.create<Mini>({
      apiVersion: API_VERSION,
      kind: 'Mini',
      metadata: { name, labels: { 'sandbay.io/local': 'true' } },
      spec: {
        address: opts.address ?? '127.0.0.1',
        model: opts.model ?? DEFAULT_MAC_MODEL,
        driver: 'linux',
        schedulable: true,
        defaultLayout: opts.layout ?? DEFAULT_VM_LAYOUT,
      },
    });
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
    return (await store.get<Mini>({ kind: 'Mini', name }))!;
  }
}
