// Wire shapes of forks (POST /v1/sandboxes/{id}/fork).
import Type, { type Static } from 'typebox';
import { defaultsOptional } from './common.ts';
import { SandboxCreatedSchema } from './sandboxes.ts';

/** The most forks one call makes: each is a cold boot; more wait on one another for little gain. */
export const MAX_FORKS = 32;

export const ForkRequestSchema = defaultsOptional(
  Type.Object(
    {
      count: Type.Integer({
        minimum: 1,
        maximum: MAX_FORKS,
        default: 1,
        description: `How many sandboxes to make from the source's disk (1–${MAX_FORKS}, default 1); all fit on the reservation's free capacity or none is made.`,
      }),
    },
    { additionalProperties: false },
  ),
);
export type ForkRequest = Static<typeof ForkRequestSchema>;

export const ForkResultSchema = Type.Object({
  source_id: Type.String({ description: 'The sandbox forked.' }),
  sandboxes: Type.Array(SandboxCreatedSchema, {
    description: "The new sandboxes, all running, each started from the source's disk (`fork_of` names it).",
  }),
});
