import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCHEDULE_ERROR_CODES, isScheduleErrorCode, scheduleErrorStatus } from './errors.ts';

const doc = readFileSync(new URL('../../docs/capacity.md', import.meta.url), 'utf8');

describe('scheduler error registry', () => {
  it('keeps the statuses the spec gives', () => {
    expect(scheduleErrorStatus('no_warm_vm')).toBe(503);
    expect(scheduleErrorStatus('snapshot_base_unavailable')).toBe(409);
  });

  it('documents every code with its status in docs/capacity.md', () => {
    for (const code of SCHEDULE_ERROR_CODES) {
      expect(doc, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${scheduleErrorStatus(code)}\\b`));
    }
  });

  it('recognises its own codes only', () => {
    expect(isScheduleErrorCode('insufficient_capacity')).toBe(true);
    expect(isScheduleErrorCode('toString')).toBe(false);
  });
});
