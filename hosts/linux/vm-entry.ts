// One VM as the linux host holds it in memory: shared by the host (which creates entries) and the
// adoption of VMs a previous process left running (which rebuilds them), so neither imports the other.
import type { Guest } from '../driver.ts';
import type { VmCgroup } from './cgroups.ts';
import type { SlotClaim } from './claims.ts';
import type { TrackedProcess } from './runner.ts';
import type { DesktopProcess } from './vm-boot.ts';
import type { VmPaths, VmRecord } from './vm-record.ts';
import type { LinuxVmRuntime } from './vm-runtime.ts';
import type { VmDnsAnswerer } from './egress-dns.ts';

/** One VM as the host holds it in memory. */
export interface VmEntry {
  record: VmRecord;
  paths: VmPaths;
  cgroup: VmCgroup;
  claim: SlotClaim;
  procs: Partial<Record<DesktopProcess, TrackedProcess>>;
  runtime?: LinuxVmRuntime;
  guest?: Guest & { close?: () => Promise<void> };
  /** Set while we stop the VM ourselves, so that the exits we cause are not taken for a crash. */
  stopping: boolean;
  /** Set while it boots: it already counts against the Mac's cores and memory. */
  booting?: boolean;
  lastActivity?: Date;
  /** The VM's DNS answerer, while its egress policy lets anything out (egress-dns.ts). */
  dns?: VmDnsAnswerer;
}
