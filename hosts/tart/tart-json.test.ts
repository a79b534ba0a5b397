import { describe, expect, it } from 'vitest';
import { parseBootTime } from './tart-json.ts';

describe('parseBootTime', () => {
  it('reads macOS’ kern.boottime and refuses anything else, quoting it', () => {
    expect(parseBootTime('{ sec = 1732435200, usec = 250000 } Sun Nov 24 08:00:00 2024\n')).toBe(
      '2024-11-24T08:00:00.250Z',
    );
    expect(() => parseBootTime('kern.boottime: 12')).toThrow(
      expect.objectContaining({
        code: 'command_failed',
        message: expect.stringContaining('"kern.boottime: 12"'),
      }),
    );
  });
});
