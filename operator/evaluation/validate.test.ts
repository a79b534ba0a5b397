import { describe, expect, it } from 'vitest';
import { EvaluationInputError, checkGrader, checkSetupSteps, checkTaskGrader, graderOf } from './validate.ts';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    if (err instanceof EvaluationInputError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('accepted');
};

describe('setup steps', () => {
  it('accepts every kind, as the OSWorld and macOSWorld importers write them', () => {
    const steps = [
      { type: 'download', url: 'https://example.com/a.docx', path: '/home/user/a.docx' },
      {
        type: 'download',
        blob: `sha256-${'a'.repeat(64)}`,
        path: 'b.txt',
        sha256: 'b'.repeat(64),
        executable: true,
      },
      {
        type: 'launch',
        command: ['google-chrome', '--remote-debugging-port=1337'],
        wait_for: { app: 'Google-chrome' },
      },
      { type: 'launch', command: 'xterm &', wait_for: false },
      { type: 'open', path: '/home/user/a.docx' },
      {
        type: 'command',
        command: ['python', '-c', 'print(1)'],
        expect: { stdout_contains: '1' },
        attempts: 20,
      },
      // macOSWorld's pre_command, whose failure does not stop the task (no force_error_free_prep).
      {
        type: 'command',
        command: "open /Users/ec2-user/Desktop; osascript -e 'x'",
        expect: { exit_code: null },
      },
      // …and retried three times until it exits 0, the setup going on either way.
      {
        type: 'command',
        command: 'osascript -e x',
        attempts: 3,
        interval_ms: 0,
        continue_on_failure: true,
      },
      { type: 'sleep', seconds: 2.5 },
    ];
    expect(checkSetupSteps(steps)).toEqual(steps);
  });

  it('names a step of an unknown type and lists the known ones', () => {
    expect(refusal(() => checkSetupSteps([{ type: 'sleep', seconds: 1 }, { type: 'frobnicate' }]))).toEqual({
      code: 'invalid_setup_step',
      message:
        'setup step 1 has an unknown type "frobnicate" (known: download, launch, open, command, sleep)',
    });
    expect(refusal(() => checkSetupSteps([{ seconds: 1 }])).message).toBe(
      'setup step 0 has no `type` (one of download, launch, open, command, sleep)',
    );
  });

  it('names the step and the field of a malformed one', () => {
    expect(refusal(() => checkSetupSteps([{ type: 'sleep', seconds: 1, extra: 2 }])).message).toBe(
      'setup step 0 (sleep): unknown field `extra`',
    );
    expect(refusal(() => checkSetupSteps([{ type: 'command' }])).message).toBe(
      'setup step 0 (command): it needs `command`',
    );
    expect(refusal(() => checkSetupSteps([{ type: 'sleep', seconds: 99999 }])).message).toBe(
      'setup step 0 (sleep): seconds must be <= 3600',
    );
    expect(refusal(() => checkSetupSteps({ type: 'sleep' })).message).toBe('setup must be an array of steps');
  });

  it('wants exactly one source of a download, over http(s)', () => {
    const both = { type: 'download', path: 'x', url: 'http://a/', blob: `sha256-${'0'.repeat(64)}` };
    expect(refusal(() => checkSetupSteps([both])).message).toBe(
      'setup step 0 (download): needs exactly one of `url` and `blob`',
    );
    expect(refusal(() => checkSetupSteps([{ type: 'download', path: 'x' }])).message).toMatch(/exactly one/);
    expect(
      refusal(() => checkSetupSteps([{ type: 'download', path: 'x', url: 'file:///etc/passwd' }])).message,
    ).toBe('setup step 0 (download): url must be http or https');
  });

  it('refuses a regular expression RE2 does not take (a backreference)', () => {
    const step = { type: 'command', command: 'true', expect: { stdout_matches: '(a)\\1' } };
    expect(refusal(() => checkSetupSteps([step])).message).toMatch(
      /^setup step 0 \(command\): expect\.stdout_matches is not an RE2 regular expression/,
    );
  });
});

describe('graders', () => {
  it('accepts checks of every kind, combined', () => {
    const grader = {
      combine: 'weighted',
      checks: [
        {
          type: 'command',
          command: 'echo True',
          expect: { stdout_contains: 'true', ignore_case: true },
          score: 0.5,
        },
        { type: 'window', match: { name_matches: '^notes', role: 'window', focused: true }, weight: 2 },
        { type: 'file', path: 'out.json', json_path: '$.a[0].b', json_equals: { c: [1, null] } },
        { type: 'file', path: 'gone.txt', exists: false },
      ],
    };
    expect(checkGrader(grader)).toEqual(grader);
  });

  it('takes a wait before the checks and lists of texts to find or not (the importers write them)', () => {
    const grader = {
      combine: 'any',
      delay_s: 30,
      checks: [
        {
          type: 'command',
          command: 'which spotify',
          expect: { stdout_contains: ['spotify'], stdout_excludes: ['not found'] },
        },
        { type: 'file', path: 'report.txt', contains: ['CPU', '%idle'], excludes: [] },
      ],
    };
    expect(checkGrader(grader)).toEqual(grader);
    expect(refusal(() => checkGrader({ ...grader, delay_s: -1 })).message).toBe(
      'delay_s must be a number of seconds from 0 to 3600',
    );
    expect(
      refusal(() => checkGrader({ checks: [{ type: 'file', path: 'a', contains: [] }] })).message,
    ).toMatch(/^check 0 \(file\): contains /);
  });

  it('names a check of an unknown type, and an unknown combination', () => {
    expect(refusal(() => checkGrader({ checks: [{ type: 'pixel' }] }))).toEqual({
      code: 'invalid_grader',
      message: 'check 0 has an unknown type "pixel" (known: command, window, file)',
    });
    expect(refusal(() => checkGrader({ combine: 'most', checks: [] })).message).toBe(
      'unknown combine "most" (known: all, any, weighted)',
    );
    expect(refusal(() => checkGrader({ checks: [] })).message).toBe(
      'a grader needs `checks`: at least one check',
    );
    expect(refusal(() => checkGrader({ checks: [{ type: 'window' }] })).message).toBe(
      'check 0 (window): it needs `match`',
    );
  });

  it('refuses JSONPath filters and json_equals without json_path', () => {
    expect(
      refusal(() => checkGrader({ checks: [{ type: 'file', path: 'a', json_equals: 1 }] })).message,
    ).toBe('check 0 (file): `json_equals` needs `json_path`');
    const filter = { type: 'file', path: 'a', json_path: '$.a[?(@.x>1)]' };
    expect(refusal(() => checkGrader({ checks: [filter] })).message).toBe(
      'check 0 (file): json_path may not use filter or script expressions',
    );
  });

  it('keeps a grader script as one command check: exit 0 earns 1', () => {
    expect(checkTaskGrader('test -f ~/done')).toBe('test -f ~/done');
    expect(graderOf('test -f ~/done', 600)).toEqual({
      checks: [{ type: 'command', name: 'grader script', command: 'test -f ~/done', timeout_s: 600 }],
    });
  });
});
