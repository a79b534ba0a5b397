// Wire shapes of screen recordings (hosts/driver.ts RecordingInfo, as the API returns it, with the
// use.computer client's names beside sandbay's).
import Type from 'typebox';
import { RecordingAliasFields } from '../compat/use-computer/recordings.ts';

export const RecordingIdSchema = Type.String({
  pattern: '^[A-Za-z0-9_.-]{1,128}$',
  description: 'The recording id, as `recording/start` returned it.',
});

export const RecordingSchema = Type.Object({
  id: Type.String({ description: 'The recording id (names it in stop, info, delete and download).' }),
  name: Type.String({ description: 'The name given at start (a generated one when none was given).' }),
  state: Type.Enum(['recording', 'stopped', 'failed'], {
    description:
      '`recording` while it runs, `stopped` once its MP4 is complete, `failed` if the capture broke.',
  }),
  started_at: Type.String({ format: 'date-time', description: 'When the recording started.' }),
  stopped_at: Type.Optional(
    Type.String({ format: 'date-time', description: 'When it stopped; absent while it runs.' }),
  ),
  duration_s: Type.Optional(Type.Number({ description: 'Length of the recorded video in seconds.' })),
  bytes: Type.Optional(Type.Integer({ description: 'Size of the MP4 file in bytes.' })),
  ...RecordingAliasFields,
});

export const RecordingStartSchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'A name for the recording (optional).' }),
    ),
  },
  { additionalProperties: false },
);
export const RecordingStopSchema = Type.Object(
  { id: { ...RecordingIdSchema, description: 'The recording to stop.' } },
  { additionalProperties: false },
);
