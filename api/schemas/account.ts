// Wire shapes of the signed-in account: the dashboard session, the account's credit, its keys.
import Type from 'typebox';
import { DateTimeString, Nullable } from './common.ts';

export const SignInSchema = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 256, description: 'The account key.' }) },
  { additionalProperties: false },
);

export const SessionSchema = Type.Object(
  {
    account: Type.String({ description: 'The account signed in.' }),
    csrf_token: Type.String({
      description: 'Send as `X-CSRF-Token` with every request of this session that changes something.',
    }),
    expires_at: { ...DateTimeString, description: 'When the session ends; sign in again after.' },
  },
  { description: 'A dashboard session (the cookie itself is HttpOnly).' },
);

export const AccountSchema = Type.Object(
  {
    account: Type.String({ description: 'The account name (the namespace of its resources).' }),
    display_name: Type.String({ description: 'The name shown for the account.' }),
    user_id: Type.String({ format: 'uuid', description: "The account's user id (reservations report it)." }),
    balance_cents: Type.Integer({ description: 'Credit left.' }),
  },
  { description: 'The account a key acts for.' },
);

export const MyKeySchema = Type.Object({
  name: Type.String({ description: 'The ApiKey resource: `k-` + 40 hex digits of the hash.' }),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart.' }),
  created_at: { ...DateTimeString, description: 'When the key was issued.' },
  expires_at: Nullable(Type.String({ format: 'date-time' }), {
    description: 'When the key stops working; null: it does not expire.',
  }),
  current: Type.Boolean({ description: 'The key this request was made with (or signed in with).' }),
  key: Type.Union([Type.String(), Type.Null()], {
    description:
      'The plaintext, kept sealed with a server-held key; null for a key issued before sealing existed that has not been used to sign in since.',
  }),
});

export const RotatedKeySchema = Type.Object({
  ...MyKeySchema.properties,
  key: Type.String({ description: 'The new account key.' }),
  revoked: Type.String({ description: 'The name of the key revoked by the rotation.' }),
});
