// Wire shapes of the admin's account-key routes.
import Type from 'typebox';
import { DateTimeString, NullableDateTime } from './common.ts';

export const KeyIssueSchema = Type.Object(
  {
    expires_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the key stops working; omitted: never.' }),
    ),
  },
  { additionalProperties: false },
);

export const AccountKeySchema = Type.Object({
  name: Type.String({ description: 'The ApiKey resource: `k-` + 40 hex digits of the hash.' }),
  prefix: Type.String({ description: 'The first characters of the plaintext, to tell keys apart.' }),
  account: Type.String({ description: 'The account the key belongs to.' }),
  revoked: Type.Boolean({ description: 'The key was revoked: it no longer works.' }),
  created_at: { ...DateTimeString, description: 'When the key was issued.' },
  expires_at: { ...NullableDateTime, description: 'When the key stops working; null: never.' },
});

export const IssuedAccountKeySchema = Type.Object({
  ...AccountKeySchema.properties,
  key: Type.String({ description: 'The plaintext key: shown in this answer only, stored as its SHA-256.' }),
});
