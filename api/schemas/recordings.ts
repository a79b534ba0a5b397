// Wire shapes of screen recordings (hosts/driver.ts RecordingInfo, as the API returns it).
import Type from 'typebox';

export const RecordingIdSchema = Type.String({ pattern: '^[A-Za-z0-9_.-]{1,128}$' });

export const RecordingSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  state: Type.Enum(['recording', 'stopped', 'failed']),
  started_at: Type.String({ format: 'date-time' }),
  stopped_at: Type.Optional(Type.String({ format: 'date-time' })),
  duration_s: Type.Optional(Type.Number()),
  bytes: Type.Optional(Type.Integer()),
});

export const RecordingStartSchema = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false },
);
export const RecordingStopSchema = Type.Object({ id: RecordingIdSchema }, { additionalProperties: false });
