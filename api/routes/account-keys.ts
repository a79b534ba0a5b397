// Account keys as an admin task (docs/api.md, Authentication): issue a key for an account (the
// plaintext is answered once, only its hash is stored), list an account's keys without secrets,
// and revoke one. Rotation is issue-then-revoke, so a client never goes a moment without a key.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Account, type ApiKey } from '../../crds/index.ts';
import type { Store } from '../../store/store.ts';
import { KEY_KIND_LABEL, apiKeyResource, generateKey } from '../keys.ts';
import { AccountKeySchema, IssuedAccountKeySchema, KeyIssueSchema } from '../schemas/account-keys.ts';
import { AdminErrorSchema } from '../schemas/admin.ts';
import { ApiError } from '../errors.ts';

const AccountParams = Type.Object({
  account: Type.String({ minLength: 1, maxLength: 63, description: 'The account.' }),
});
const KeyParams = Type.Object({
  ...AccountParams.properties,
  key: Type.String({
    minLength: 1,
    maxLength: 63,
    description: "The key's name (`k-…`) or its shown prefix.",
  }),
});

function keyWire(k: ApiKey) {
  return {
    name: k.metadata.name,
    prefix: k.spec.prefix,
    account: k.spec.account ?? '',
    revoked: k.spec.revoked,
    created_at: k.metadata.creationTimestamp ?? '',
    expires_at: k.spec.expiresAt ?? null,
  };
}

async function accountKeys(store: Store, account: string): Promise<ApiKey[]> {
  const { items } = await store.list<ApiKey>('ApiKey', { labelSelector: `${KEY_KIND_LABEL}=account` });
  return items
    .filter((k) => k.spec.kind === 'account' && k.spec.account === account)
    .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
}

export const accountKeyRoutes: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
  const tags = ['admin'];
  const noAccount = (account: string) =>
    new ApiError('account_not_found', `no account "${account}"`).toJSON();

  app.post(
    '/admin/accounts/:account/keys',
    {
      schema: {
        operationId: 'createAccountKey',
        tags,
        summary: 'Issue an account key (the plaintext is in this answer only)',
        params: AccountParams,
        body: Type.Optional(KeyIssueSchema),
        response: { 201: IssuedAccountKeySchema, 404: AdminErrorSchema },
      },
    },
    async (request, reply) => {
      const { account } = request.params;
      if (!(await store.get<Account>({ kind: 'Account', name: account })))
        return reply.code(404).send(noAccount(account));
      const key = generateKey();
      const expiresAt = request.body?.expires_at;
      const created = await store.create<ApiKey>(
        apiKeyResource(key, { kind: 'account', account, ...(expiresAt !== undefined && { expiresAt }) }),
      );
      return reply.code(201).send({ ...keyWire(created), key: key.plaintext });
    },
  );

  app.get(
    '/admin/accounts/:account/keys',
    {
      schema: {
        operationId: 'listAccountKeys',
        tags,
        summary: "An account's keys (prefixes only, never a secret)",
        params: AccountParams,
        response: { 200: Type.Array(AccountKeySchema), 404: AdminErrorSchema },
      },
    },
    async (request, reply) => {
      const { account } = request.params;
      if (!(await store.get<Account>({ kind: 'Account', name: account })))
        return reply.code(404).send(noAccount(account));
      return (await accountKeys(store, account)).map(keyWire);
    },
  );

  app.delete(
    '/admin/accounts/:account/keys/:key',
    {
      schema: {
        operationId: 'revokeAccountKey',
        tags,
        summary: 'Revoke an account key (by name or by its shown prefix); it answers 401 from then on',
        params: KeyParams,
        response: { 200: AccountKeySchema, 404: AdminErrorSchema, 409: AdminErrorSchema },
      },
    },
    async (request, reply) => {
      const { account, key } = request.params;
      const keys = await accountKeys(store, account);
      const matches = keys.filter((k) => k.metadata.name === key || k.spec.prefix === key);
      if (matches.length === 0)
        return reply
          .code(404)
          .send(new ApiError('key_not_found', `account "${account}" has no key "${key}"`).toJSON());
      if (matches.length > 1)
        return reply
          .code(409)
          .send(new ApiError('key_ambiguous', `"${key}" names several keys: give the key's name`).toJSON());
      const target = matches[0]!;
      if (target.spec.revoked) return keyWire(target);
      const revoked = await store.update<ApiKey>({ ...target, spec: { ...target.spec, revoked: true } });
      return keyWire(revoked);
    },
  );
};
