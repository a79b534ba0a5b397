// The names the use.computer client reads a recording by (its RecordingInfo: `id` or
// `recording_id`, `status`, `name`, `filename`, `file_size`), answered beside sandbay's own fields
// (`id`, `name`, `state`, `bytes`, …) on every recording object. Aliases only: each is another
// name for a field the recording already has.
import Type from 'typebox';
import type { RecordingInfo } from '../../../hosts/driver.ts';

export const RecordingAliasFields = {
  recording_id: Type.String({ description: 'The same as `id` (the use.computer client reads either).' }),
  status: Type.Enum(['recording', 'stopped', 'failed'], { description: 'The same as `state`.' }),
  filename: Type.String({ description: 'The name of the MP4 that `download` answers: `<id>.mp4`.' }),
  file_size: Type.Integer({ description: 'The same as `bytes`; 0 until the MP4 is complete.' }),
};

export interface RecordingAliases {
  recording_id: string;
  status: RecordingInfo['state'];
  filename: string;
  file_size: number;
}

export function withRecordingAliases(info: RecordingInfo): RecordingInfo & RecordingAliases {
  return {
    ...info,
    recording_id: info.id,
    status: info.state,
    filename: `${info.id}.mp4`,
    file_size: info.bytes ?? 0,
  };
}
