// The program's two dynamic resource types: a Mini registered with sandbay, and the guard of a rented
// host's 24-hour minimum. Their providers live in their own modules (see dynamic.ts for why).
import * as pulumi from '@pulumi/pulumi';
import { delegatingProvider } from './dynamic.ts';
import type { LeaseGuardInputs } from './lease-guard-provider.ts';
import type { MiniInputs } from './mini-provider.ts';

type InputsOf<T> = { [K in keyof T]: pulumi.Input<T[K]> };

const miniProvider = delegatingProvider('fleet/mini-provider.ts', 'MiniProvider');
const leaseGuardProvider = delegatingProvider('fleet/lease-guard-provider.ts', 'LeaseGuardProvider');

export class Mini extends pulumi.dynamic.Resource {
  declare readonly name: pulumi.Output<string>;
  declare readonly address: pulumi.Output<string>;
  declare readonly model: pulumi.Output<string>;
  declare readonly phase: pulumi.Output<string | undefined>;

  constructor(name: string, args: InputsOf<MiniInputs>, opts?: pulumi.CustomResourceOptions) {
    super(
      miniProvider,
      name,
      { phase: undefined, reservation: undefined, ...args },
      { ...opts, additionalSecretOutputs: ['adminKey'] },
      'fleet',
      'Mini',
    );
  }
}

export class LeaseGuard extends pulumi.dynamic.Resource {
  declare readonly allocatedAt: pulumi.Output<string>;

  constructor(name: string, args: InputsOf<LeaseGuardInputs>, opts?: pulumi.CustomResourceOptions) {
    super(leaseGuardProvider, name, { allocatedAt: undefined, ...args }, opts, 'fleet', 'LeaseGuard');
  }
}
