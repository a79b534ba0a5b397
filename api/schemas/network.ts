// Wire shapes of a sandbox's network: its egress policy (the Sandbox spec's schema, crds/egress.ts)
// as a create asks for it and `PATCH …/network` changes it, and what is in force.
import Type, { type Static } from 'typebox';
import { EGRESS_MODES, EgressPolicySchema } from '../../crds/egress.ts';
import { Nullable } from './common.ts';

export const EgressRequestSchema = {
  ...EgressPolicySchema,
  description:
    'Where the VM may connect to: `{"mode": "none" | "all" | "allow", "allow": [IPv4 addresses, CIDRs or domains]}`. Absent: its Mac\'s default (docs/api.md, Egress).',
};

export const EgressInForceSchema = Nullable(
  Type.Object({
    mode: Type.Enum([...EGRESS_MODES], { description: 'The mode in force.' }),
    allow: Type.Array(Type.String(), {
      description: 'Its rules, normalized (mode `allow`); empty otherwise.',
    }),
  }),
  {
    description:
      "The egress policy in force on the VM; null until it runs, or when its Mac's driver enforces none.",
  },
);

export const NetworkPatchSchema = Type.Object(
  { egress: EgressRequestSchema },
  { additionalProperties: false },
);
export type NetworkPatch = Static<typeof NetworkPatchSchema>;

export const NetworkSchema = Type.Object({
  egress: EgressInForceSchema,
  modes: Type.Array(Type.Enum([...EGRESS_MODES]), {
    description:
      "The modes the sandbox's Mac enforces (a PATCH asking for another answers 422 `egress_not_allowed`).",
  }),
  domains: Type.Boolean({
    description: 'Whether `allow` rules may name domains on this Mac (else addresses only).',
  }),
});
export type Network = Static<typeof NetworkSchema>;
