// The host drivers a sandbay process runs, by the `--host-driver` it was started with.
import { join } from 'node:path';
import type { DriverKind } from '../crds/index.ts';
import type { Driver } from './driver.ts';
import { createLinuxDriver } from './linux/index.ts';
import { createSimDriver } from './sim/index.ts';
import { createTartDriver } from './tart/index.ts';

export type Drivers = Partial<Record<DriverKind, Driver>>;

/** What the operator lets the linux driver's VMs reach (docs/isolation.md). */
export interface VmNetworkOptions {
  /** VMs may reach the internet through NAT, as their egress policy says. Default off. */
  vmOutboundNat?: boolean;
  /** With NAT: the egress mode of a sandbox that asks for none (default `all`). */
  vmEgressDefault?: 'none' | 'all';
  /** The resolvers the VMs' DNS answerer asks (default: the machine's). */
  vmDns?: string[];
}

/**
 * The drivers for `kind`, keeping their state under `dataDir`. `linux` makes this machine one Mac of
 * real desktops; `sim` runs in-memory Macs for scale and fault tests (never a claim about real hosts).
 * `tart` drives Mac minis over SSH (hosts/tart, docs/mac.md).
 */
export function createDrivers(
  kind: DriverKind,
  dataDir: string,
  log?: (msg: string) => void,
  /** Operator settings of the hosts this process drives. */
  hostOptions: VmNetworkOptions = {},
): Drivers {
  switch (kind) {
    case 'linux':
      return {
        linux: createLinuxDriver({
          dataDir: join(dataDir, 'linux'),
          outboundNat: hostOptions.vmOutboundNat ?? false,
          ...(hostOptions.vmEgressDefault !== undefined && { egressDefault: hostOptions.vmEgressDefault }),
          ...(hostOptions.vmDns !== undefined && { dnsUpstreams: hostOptions.vmDns }),
          ...(log && { log }),
        }),
      };
    case 'sim':
      return { sim: createSimDriver() };
    case 'tart':
      return { tart: createTartDriver({ dataDir }) };
  }
}

export async function closeDrivers(drivers: Drivers): Promise<void> {
  await Promise.all(Object.values(drivers).map((d) => d.close()));
}
