// The rules a VM's spec must meet on a host of a given Mac model, checked before anything changes.
import { IMAGES, type MacProfile } from '../../crds/mac-models.ts';
import { DriverError, type VmCreateSpec, type VmInfo } from '../driver.ts';
import type { VmRecord } from './vm-record.ts';

const NAME = /^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/;

/** Validates a create request; returns the disk size of its image. */
export function validateCreate(spec: VmCreateSpec, profile: MacProfile): number {
  if (typeof spec.name !== 'string' || !NAME.test(spec.name)) {
    throw new DriverError(
      'invalid_argument',
      `bad VM name ${JSON.stringify(spec.name)}: lowercase letters, digits, '.', '-'`,
    );
  }
  const image = Object.values(IMAGES).find((i) => i.name === spec.image);
  if (!image) throw new DriverError('not_found', `image ${spec.image} is not on this host`);
  validateSize(spec, profile);
  return image.diskGiB;
}

/** Whole vCPUs and GiB, at least 1, at most what the Mac has. */
export function validateSize(size: { cpu: number; memoryGiB: number }, p: MacProfile): void {
  if (!Number.isInteger(size.cpu) || size.cpu < 1 || size.cpu > p.cores) {
    throw new DriverError('invalid_argument', `cpu must be an integer from 1 to ${p.cores}, got ${size.cpu}`);
  }
  if (!Number.isInteger(size.memoryGiB) || size.memoryGiB < 1 || size.memoryGiB > p.memoryGiB) {
    throw new DriverError(
      'invalid_argument',
      `memoryGiB must be an integer from 1 to ${p.memoryGiB}, got ${size.memoryGiB}`,
    );
  }
}

/** Running VMs never add up to more vCPU or memory than the Mac has (what a real Mac enforces). */
export function checkRoom(vm: VmRecord, others: readonly VmRecord[], p: MacProfile): void {
  const cpu = others.reduce((n, o) => n + o.cpu, vm.cpu);
  const mem = others.reduce((n, o) => n + o.memoryGiB, vm.memoryGiB);
  if (cpu > p.cores || mem > p.memoryGiB) {
    throw new DriverError(
      'capacity',
      `starting ${vm.name} would use ${cpu} of ${p.cores} cores and ${mem} of ${p.memoryGiB} GiB`,
    );
  }
}

export function vmInfo(r: VmRecord): VmInfo {
  return {
    name: r.name,
    image: r.image,
    cpu: r.cpu,
    memoryGiB: r.memoryGiB,
    state: r.state,
    ...(r.state === 'running' ? { ip: r.ip } : {}),
    ...(r.state === 'running' && r.paused === true && { paused: true }),
  };
}
