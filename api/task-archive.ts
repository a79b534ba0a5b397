// The download archive of a task (spec: a ZIP of `trajectory.json`, `images/` of per-step PNGs, task
// metadata and `setup.sh`). It is streamed: each PNG is read from the blob store while the archive is
// written, so a long trajectory never sits in memory. PNGs are stored (they are already compressed);
// the JSON and scripts are deflated. Every artifact is checked before the first byte is sent, so a
// missing screenshot is a JSON error, not a truncated archive.
import { PassThrough, type Readable } from 'node:stream';
import { once } from 'node:events';
import { Zip, ZipDeflate, ZipPassThrough, type ZipInputFile } from 'fflate';
import type { Task } from '../crds/index.ts';
import { atifTask, imagePath, orderedSteps, toAtif } from './atif.ts';

/** An artifact the archive will read: its checked blob, opened only when its entry is written. */
export interface ArchiveImage {
  index: number;
  open(): Readable;
}

/** The metadata entry (`task.json`): the trajectory's `extra.task` plus what a listing shows. */
export function taskMetadata(task: Task) {
  return {
    ...atifTask(task),
    phase: task.status?.phase ?? null,
    step_count: task.status?.steps?.length ?? 0,
    has_recording: task.status?.recording !== undefined,
  };
}

/** The names of the archive's entries, in the order they are written. */
export function archiveEntries(task: Task): string[] {
  const names = ['trajectory.json', 'task.json', 'setup.sh'];
  if (task.spec.setup !== undefined) names.push('setup.json');
  if (typeof task.spec.grader === 'string') names.push('grader.sh');
  else if (task.spec.grader !== undefined) names.push('grader.json');
  for (const step of orderedSteps(task)) if (step.screenshot) names.push(imagePath(step.index));
  return names;
}

/**
 * Streams the ZIP. `images` holds one opener per step screenshot, already checked by the caller.
 * Errors while streaming (a blob vanishing mid-download) destroy the stream.
 */
export function taskArchive(task: Task, images: ArchiveImage[]): Readable {
  const out = new PassThrough();
  const zip = new Zip((err, chunk, final) => {
    if (out.destroyed) return;
    if (err) return out.destroy(err);
    out.write(chunk);
    if (final) out.end();
  });
  const text = (name: string, body: string) => {
    const file = new ZipDeflate(name, { level: 6 });
    zip.add(file);
    file.push(Buffer.from(body, 'utf8'), true);
  };
  void (async () => {
    text('trajectory.json', `${JSON.stringify(toAtif(task), null, 2)}\n`);
    text('task.json', `${JSON.stringify(taskMetadata(task), null, 2)}\n`);
    text('setup.sh', task.spec.setupScript ?? '');
    if (task.spec.setup !== undefined) text('setup.json', `${JSON.stringify(task.spec.setup, null, 2)}\n`);
    const grader = task.spec.grader;
    if (typeof grader === 'string') text('grader.sh', grader);
    else if (grader !== undefined) text('grader.json', `${JSON.stringify(grader, null, 2)}\n`);
    for (const image of [...images].sort((a, b) => a.index - b.index)) {
      const file: ZipInputFile & { push(c: Uint8Array, final?: boolean): void } = new ZipPassThrough(
        imagePath(image.index),
      );
      zip.add(file);
      for await (const chunk of image.open()) {
        file.push(chunk as Buffer);
        // Backpressure: wait while the client has not taken what was written; a client that went
        // away ends the archive (and closes the blob being read).
        if (out.writableNeedDrain) await Promise.race([once(out, 'drain'), once(out, 'close')]);
        if (out.destroyed) throw new Error('the download was closed');
      }
      file.push(new Uint8Array(0), true);
    }
    zip.end();
  })().catch((err: unknown) => {
    zip.terminate();
    if (!out.destroyed) out.destroy(err as Error);
  });
  return out;
}
