// PIDs across PID namespaces: a VM's processes see their own PID namespace (vm-mount-ns.ts), so a
// PID a VM's shell prints is not the machine's.
import { readFileSync } from 'node:fs';

/** The PIDs of a process in each PID namespace it is in, outermost (the machine's) first ([] once gone). */
export function nsPids(pid: number): number[] {
  try {
    const line = /^NSpid:\s+(.+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
    return line.split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
