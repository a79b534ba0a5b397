// What a Mac of the tart driver enforces of a sandbox's egress policy (crds/egress.ts): nothing but
// what its VMs already have. A hook kept apart from the driver's code (docs/mac.md, Egress).
//
// The driver runs every VM with `--net-softnet` (public addresses and the Mac's gateway, no private
// range, no other VM): the nearest to the linux driver's `all`.
// Tart can filter a guest's traffic only with Softnet, and only by the arguments of `tart run`:
// `--net-softnet-block=0.0.0.0/0` is `none`, adding `--net-softnet-allow=<CIDRs>` is `allow` with
// addresses (longest prefix wins). Those hold for the VM's whole run, and sandbay's warm VMs run
// before a sandbox claims one, so a policy would cost a cold boot per sandbox and could never
// change while the sandbox runs; and a domain cannot be expressed at all (Softnet matches
// addresses, and answers no DNS). So the tart driver enforces no policy, and says so by name.
import type { EgressSupport } from '../../crds/egress.ts';

export const TART_EGRESS: EgressSupport = {
  default: 'all',
  modes: ['all'],
  domains: false,
  refusal:
    "Tart filters a guest's traffic only through Softnet's `tart run --net-softnet-allow/--net-softnet-block` CIDRs, fixed when the VM starts (sandbay's warm VMs start before a sandbox claims one, and a running VM's rules cannot change), and Softnet cannot name domains: tart Macs give every sandbox Softnet's default network (mode all: public addresses, no private ranges)",
};
