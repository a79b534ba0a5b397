import { describe, expect, it } from 'vitest';
import { DriverError } from '../../hosts/driver.ts';
import { probeFailure } from './probe-failure.ts';

describe('probeFailure', () => {
  it('names a refused key, a changed host key, a missing tool and a misconfigured Mini apart from an outage', () => {
    const auth = new DriverError(
      'unreachable',
      'SSH to root@198.18.1.2:22: All configured authentication methods failed',
    );
    expect(probeFailure(auth)).toMatchObject({
      reason: 'HostAuthFailed',
      message: expect.stringMatching(/^SSH to .*methods failed \(the Mac refused the key/),
    });
    const hostKey = new DriverError('unreachable', 'SSH to x: host key verification failed: the server …');
    expect(probeFailure(hostKey).reason).toBe('HostKeyChanged');
    expect(probeFailure(new DriverError('timeout', 'host m did not answer within 10000 ms'))).toEqual({
      reason: 'HostUnreachable',
      message: 'host m did not answer within 10000 ms',
    });
    const tart = new DriverError('missing_tool', 'tart 1.9.0 on m: sandbay needs Tart 2.x', 'tart --version');
    expect(probeFailure(tart).reason).toBe('HostToolMissing');
    expect(probeFailure(new DriverError('not_found', 'credentials x not found')).reason).toBe(
      'HostMisconfigured',
    );
    expect(probeFailure(new Error('boom'))).toEqual({ reason: 'HostProbeFailed', message: 'boom' });
  });
});
