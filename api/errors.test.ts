import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DriverError } from '../hosts/driver.ts';
import { StoreError } from '../store/store.ts';
import { SCHEDULE_ERRORS } from '../operator/scheduler/errors.ts';
import { ApiError, ERRORS, toApiError } from './errors.ts';

describe('the error registry', () => {
  it('documents every code in docs/api.md with its status', () => {
    const doc = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
    for (const [code, e] of Object.entries(ERRORS)) {
      expect(doc, code).toMatch(new RegExp(`\\| ${e.status} \\| \`${code}\` \\|`));
    }
  });

  it("keeps the scheduler's statuses for capacity refusals", () => {
    for (const [code, e] of Object.entries(SCHEDULE_ERRORS))
      expect(ERRORS[code as keyof typeof ERRORS].status).toBe(e.status);
    expect(ERRORS.no_warm_vm.status).toBe(503);
    expect(ERRORS.idempotency_in_flight.status).toBe(409);
    expect(ERRORS.idempotency_key_reused.status).toBe(422);
    expect(ERRORS.snapshot_base_unavailable.status).toBe(409);
    expect(ERRORS.snapshot_failed.status).toBe(502);
  });

  it('maps driver, store and framework failures to coded errors', () => {
    expect(toApiError(new DriverError('not_found', 'no such file')).code).toBe('file_not_found');
    expect(toApiError(new DriverError('timeout', 'slow')).status).toBe(504);
    expect(toApiError(new StoreError('Conflict', 'stale')).code).toBe('conflict');
    expect(toApiError(Object.assign(new Error('body/x must be integer'), { validation: [{}] })).code).toBe(
      'invalid_request',
    );
    expect(
      toApiError(Object.assign(new Error('too big'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE' })).status,
    ).toBe(413);
    expect(toApiError(new Error('boom')).toJSON()).toEqual({
      error: 'internal_error',
      message: 'Internal error.',
    });
    expect(new ApiError('sandbox_not_found').toJSON()).toEqual({
      error: 'sandbox_not_found',
      message: 'Sandbox not found.',
    });
  });
});
