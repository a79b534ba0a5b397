// A trajectory's screen recording: where a task's MP4 is stored, and storing it once the recording on
// the sandbox is stopped. Used by the collector (API) and the evaluation attempts (operator).
import type { BlobStore } from '../blob-store.ts';
import type { Guest } from '../../hosts/driver.ts';
import type { Logger } from '../runtime/logger.ts';
import { isStoreError, type Store } from '../../store/store.ts';
import { changeTask, type TaskRef } from './task-state.ts';

/** Where a task's MP4 is stored (deleting the task deletes it there, whatever its status says). */
export function recordingLocation(account: string, taskId: string): string {
  return `tasks/${account}/${taskId}/recording.mp4`;
}

/** Stores the collection's MP4 with the task (phase `ready`, or `saved` if it could not be), then removes it from the VM. */
export async function finalizeRecording(
  deps: { store: Store; blobs: BlobStore; log: Logger; guest: Guest },
  ref: TaskRef,
  recordingId: string,
): Promise<void> {
  const { guest, blobs, log, store } = deps;
  const writeStatus = async (status: Record<string, unknown>) => {
    const r = await changeTask(store, ref, () => status);
    if (!r) throw Object.assign(new Error('task gone'), { gone: true });
  };
  try {
    await guest.stopRecording(recordingId);
    const mp4 = await guest.downloadRecording(recordingId);
    const recording = await blobs.put(recordingLocation(ref.account, ref.taskId), mp4);
    try {
      await writeStatus({ phase: 'ready', recording });
    } catch (err) {
      // The task was deleted while the MP4 was being stored: its blob would be named by nothing.
      await blobs.delete(recording.location).catch(() => {});
      throw err;
    }
    await guest.deleteRecording(recordingId).catch(() => {});
  } catch (err) {
    if ((err as { gone?: boolean }).gone || isStoreError(err, 'NotFound')) {
      await guest.deleteRecording(recordingId).catch(() => {});
      return;
    }
    log.warn({ err, task: ref.taskId }, 'collection: the screen recording could not be finalized');
    await writeStatus({ phase: 'saved' }).catch(() => {});
  }
}
