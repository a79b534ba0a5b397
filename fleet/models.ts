// Which sandbay model a provider's machine is. The one table of it: the config check, the sources and
// the docs read it. A combination the table lacks is a configuration error before anything is created.
import type { MacModel } from '../crds/index.ts';

/** EC2 Mac instance types on Dedicated Hosts (mac-m4.metal: M4, 24 GB; mac-m4pro.metal: M4 Pro, 48 GB). */
export const AWS_INSTANCE_TYPES = {
  'mac-m4.metal': 'm4',
  'mac-m4pro.metal': 'm4-pro',
} as const satisfies Record<string, MacModel>;

/** Scaleway Apple silicon server types (M4-S and M4-M: M4; M4-XL: M4 Pro). */
export const SCALEWAY_SERVER_TYPES = {
  'M4-S': 'm4',
  'M4-M': 'm4',
  'M4-XL': 'm4-pro',
} as const satisfies Record<string, MacModel>;

export type AwsInstanceType = keyof typeof AWS_INSTANCE_TYPES;
export type ScalewayServerType = keyof typeof SCALEWAY_SERVER_TYPES;

/** The first type of a table that gives `model`, if any (the default when a Mac names only its model). */
function typeFor<T extends string>(table: Record<T, MacModel>, model: MacModel): T | undefined {
  return (Object.keys(table) as T[]).find((t) => table[t] === model);
}

export const awsTypeFor = (model: MacModel) => typeFor(AWS_INSTANCE_TYPES, model);
export const scalewayTypeFor = (model: MacModel) => typeFor(SCALEWAY_SERVER_TYPES, model);

/** The models a provider offers, for error messages ("offers m4, m4-pro"). */
export function modelsOffered(table: Record<string, MacModel>): string {
  return [...new Set(Object.values(table))].join(', ');
}
