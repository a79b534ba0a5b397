// Why a host probe failed, in words an operator can act on: the Mini's Ready condition carries the
// reason (a constant of conditions.ts) and the driver's message, which names the command and quotes
// the host's own text. A probe that fails is retried on its period, whatever the cause: a wrong
// address, key or Tart version is a state of the Mini, never a crash of the control plane.
import { DriverError } from '../../hosts/driver.ts';
import { Reasons } from '../conditions.ts';

export interface ProbeFailure {
  reason: string;
  message: string;
}

export function probeFailure(err: unknown): ProbeFailure {
  const message = err instanceof Error ? err.message : String(err);
  if (!(err instanceof DriverError)) return { reason: Reasons.HostProbeFailed, message };
  if (/authentication methods failed/i.test(message)) {
    return {
      reason: Reasons.HostAuthFailed,
      message: `${message} (the Mac refused the key its credentialsRef names: authorize its public key for that user on the Mac)`,
    };
  }
  if (/host key verification failed/i.test(message)) {
    return {
      reason: Reasons.HostKeyChanged,
      message: `${message} (the Mac's host key changed since it was first seen: if it was re-installed, remove its pinned key)`,
    };
  }
  switch (err.code) {
    case 'unreachable':
    case 'timeout':
      return { reason: Reasons.HostUnreachable, message };
    case 'missing_tool':
      return { reason: Reasons.HostToolMissing, message };
    case 'not_found':
    case 'invalid_argument':
      return { reason: Reasons.HostMisconfigured, message };
    default:
      return { reason: Reasons.HostProbeFailed, message };
  }
}
