// Screen recordings of a sim guest: tracked with their times on the driver's clock; a stopped one
// downloads as a frame-less MP4 of its duration (see mp4.ts).
import { Readable } from 'node:stream';
import { DriverError, type RecordingInfo } from '../driver.ts';
import { emptyMp4 } from './mp4.ts';

export type SimRecording = RecordingInfo & { startedAtMs: number };
export type Recordings = Map<string, SimRecording>;

const MAX_ACTIVE = 2;
const MAX_NAME = 255;

export function startRecording(
  recordings: Recordings,
  id: string,
  now: number,
  name?: string,
): RecordingInfo {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  const bad = typeof name !== 'string' || name.length > MAX_NAME || /[\x00-\x1f\x7f]/.test(name);
  if (name !== undefined && bad) {
    throw new DriverError(
      'invalid_argument',
      `recording name must be up to ${MAX_NAME} printable characters`,
    );
  }
  const active = [...recordings.values()].filter((r) => r.state === 'recording').length;
  if (active >= MAX_ACTIVE) {
    throw new DriverError(
      'capacity',
      `${active} recordings already running on this VM (limit ${MAX_ACTIVE})`,
    );
  }
  const rec: SimRecording = {
    id,
    name: name ?? id,
    state: 'recording',
    started_at: new Date(now).toISOString(),
    startedAtMs: now,
  };
  recordings.set(id, rec);
  return publicInfo(rec);
}

/** Stops a recording (a stopped one is returned as is). */
export function stopRecording(recordings: Recordings, id: string, now: number): RecordingInfo {
  const rec = recordingOf(recordings, id);
  if (rec.state === 'recording') {
    rec.state = 'stopped';
    rec.stopped_at = new Date(now).toISOString();
    rec.duration_s = (now - rec.startedAtMs) / 1000;
    rec.bytes = emptyMp4(rec.duration_s * 1000).length;
  }
  return publicInfo(rec);
}

/** The VM stopped: every running recording ends there. */
export function stopAll(recordings: Recordings | undefined, now: number): void {
  for (const rec of recordings?.values() ?? []) {
    if (rec.state === 'recording') stopRecording(recordings!, rec.id, now);
  }
}

export function deleteRecording(recordings: Recordings, id: string): void {
  recordingOf(recordings, id);
  recordings.delete(id);
}

export function downloadRecording(recordings: Recordings, id: string): Readable {
  const rec = recordingOf(recordings, id);
  if (rec.state === 'recording') {
    throw new DriverError('invalid_argument', `recording ${id} is still running; stop it first`);
  }
  return Readable.from([emptyMp4((rec.duration_s ?? 0) * 1000)]);
}

export function recordingOf(recordings: Recordings, id: string): SimRecording {
  const rec = recordings.get(id);
  if (!rec) throw new DriverError('not_found', `no recording ${String(id)}`);
  return rec;
}

export function publicInfo(rec: SimRecording): RecordingInfo {
  const { startedAtMs: _ms, ...info } = rec;
  return { ...info };
}
