// The flags of a process that drives hosts (`server`, `operator`) about what its linux VMs may reach
// (docs/isolation.md, Outbound NAT and Egress), and the host options they give.
import { Flags } from '@oclif/core';
import type { VmNetworkOptions } from '../../../hosts/create-drivers.ts';

export const vmNetworkFlags = {
  'vm-outbound-nat': Flags.boolean({
    description:
      'linux driver: VMs may reach the internet through NAT on this machine, as their egress policy says (needs net.ipv4.ip_forward=1; docs/isolation.md)',
    default: false,
  }),
  'vm-egress-default': Flags.string({
    description: 'linux driver, with --vm-outbound-nat: the egress mode of a sandbox that asks for none',
    options: ['all', 'none'],
    default: 'all',
  }),
  'vm-dns': Flags.string({
    description:
      "linux driver: comma-separated resolvers the VMs' DNS answerer asks (default: the machine's /etc/resolv.conf)",
  }),
};

export function vmNetworkOptions(flags: {
  'vm-outbound-nat': boolean;
  'vm-egress-default': string;
  'vm-dns'?: string | undefined;
}): VmNetworkOptions {
  return {
    vmOutboundNat: flags['vm-outbound-nat'],
    vmEgressDefault: flags['vm-egress-default'] === 'none' ? 'none' : 'all',
    ...(flags['vm-dns'] !== undefined && {
      vmDns: flags['vm-dns']
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    }),
  };
}
