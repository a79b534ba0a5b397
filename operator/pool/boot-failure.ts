// A boot failure the sandbox reports with its code (as opposed to an outage or a conflict, which
// retry): thrown by the boot steps (boot.ts, fork.ts), written on the VM's Booted condition.
import type { SandboxFailureCode } from '../conditions.ts';

export class BootFailure extends Error {
  readonly code: SandboxFailureCode;
  constructor(code: SandboxFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}
