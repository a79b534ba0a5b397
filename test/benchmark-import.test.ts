// Importing benchmark task files (docs/evaluation.md, "Importing benchmark tasks"): real OSWorld and
// macOSWorld files (test/fixtures/, with their source and licence) map onto setup steps and graders
// as each harness runs them, or are refused naming the step, getter or metric and why; the route
// creates the task through the same service as a task written by hand, and a refusal writes nothing.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { macosworldTask } from '../api/compat/macosworld/task.ts';
import { osworldTask } from '../api/compat/osworld/task.ts';
import { ApiError } from '../api/errors.ts';
import { seedAccount, startApiStack, type ApiStack } from './api-harness.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const osworld = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(FIXTURES, 'osworld', `${file}.json`), 'utf8'));
const macosworld = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(FIXTURES, 'macosworld', `${file}.json`), 'utf8'));

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError && err.code === 'task_unsupported') return err.message;
    throw err;
  }
  throw new Error('imported');
}

describe('OSWorld task files', () => {
  it('maps execute, placeholders and exact_match as its server runs them', () => {
    const t = osworldTask(osworld('os/e0df059f-28a6-4169-924f-b9623e7184cc'), {
      client_password: 'pw',
      screen_width: 1280,
      screen_height: 800,
    });
    expect(t).toMatchObject({ id: 'e0df059f-28a6-4169-924f-b9623e7184cc', category: 'os' });
    expect(t.instruction).toMatch(/^I have a directory named "todo_list_Jan_1"/);
    expect(t.setup).toEqual([
      // `shell: true`: the line as it is (the exit code is not looked at without `until`).
      {
        type: 'command',
        command: 'echo pw | sudo -S mkdir ~/Desktop/todo_list_Jan_1',
        expect: { exit_code: null },
      },
      {
        type: 'command',
        command: [
          'python',
          '-c',
          'import pyautogui; import time; pyautogui.click(640, 400); time.sleep(0.5);',
        ],
        expect: { exit_code: null },
      },
    ]);
    expect(t.grader).toEqual({
      combine: 'all',
      checks: [
        {
          type: 'command',
          name: 'exact_match (vm_command_line)',
          command:
            "[ -d ~/Desktop/todo_list_Jan_2 ] && echo 'Directory exists.' || echo 'Directory does not exist.'",
          // The whole output, its newline included, as Python's == compares it.
          expect: { exit_code: null, stdout_matches: '\\ADirectory exists\\.\n\\z' },
        },
      ],
    });
  });

  it('refuses {CLIENT_PASSWORD} without the password, naming the step', () => {
    expect(refusal(() => osworldTask(osworld('os/e0df059f-28a6-4169-924f-b9623e7184cc')))).toBe(
      "config step 0 (execute) uses {CLIENT_PASSWORD}: give options.client_password (the VM user's sudo password)",
    );
  });

  it('maps check_include_exclude on a non-shell command string as shlex splits it', () => {
    const t = osworldTask(osworld('os/94d95f96-9699-4208-98ba-3c3119edf9c2'));
    // OSWorld's default screen halves without options.
    expect(JSON.stringify(t.setup[0])).toContain('pyautogui.click(960, 540)');
    expect(t.grader.checks).toEqual([
      {
        type: 'command',
        name: 'check_include_exclude (vm_command_line)',
        command: ['which', 'spotify'],
        expect: { exit_code: null, stdout_contains: ['spotify'], stdout_excludes: ['not found'] },
      },
    ]);
  });

  it('maps argv setup commands and the download of a file by URL', () => {
    const gsettings = osworldTask(osworld('os/a4d98375-215b-4a4d-aee9-3d4370fccc41'));
    expect(gsettings.setup[0]).toEqual({
      type: 'command',
      command: ['gsettings', 'set', 'org.gnome.desktop.screensaver', 'lock-enabled', 'false'],
      expect: { exit_code: null },
    });
    const poster = osworldTask(osworld('os/5ea617a3-0e86-4ba6-aab2-dac9aa2e8d57'));
    expect(poster.setup[0]).toMatchObject({
      type: 'download',
      url: expect.stringMatching(/^https:\/\/huggingface\.co\//),
    });
  });

  it('refuses what needs Chrome DevTools, a spreadsheet metric or the agent’s last action, naming it', () => {
    expect(refusal(() => osworldTask(osworld('chrome/06fe7178-4491-4589-810f-2e2bc9502122')))).toMatch(
      /^config step \d+ \(chrome_open_tabs\) drives Chrome through its DevTools port \(CDP\)/,
    );
    expect(
      refusal(() => osworldTask(osworld('libreoffice_calc/01b269ae-2111-4a07-81fd-3fcd711993b0'))),
    ).toMatch(
      /compare_table with the vm_file getter is not supported \(supported: exact_match with vm_command_line/,
    );
    expect(refusal(() => osworldTask(osworld('os/b3d4a89c-53f2-4d6b-8b6a-541fb5d205fa')))).toMatch(
      /^evaluator func infeasible: func infeasible grades the agent's last action \(FAIL\)/,
    );
    expect(
      refusal(() =>
        osworldTask(osworld('multi_apps/2373b66a-092d-44cb-bfd7-82e86e7a3b4d'), { client_password: 'x' }),
      ),
    ).toMatch(
      /^evaluator func 1 \(check_line_number\): check_line_number with the vm_file getter is not supported/,
    );
  });

  it('refuses tidy_desktop and act, which OSWorld’s own setup controller does not implement, saying so', () => {
    const base = osworld('os/e0df059f-28a6-4169-924f-b9623e7184cc');
    for (const type of ['tidy_desktop', 'act']) {
      const task = { ...base, config: [{ type, parameters: {} }] };
      expect(refusal(() => osworldTask(task, { client_password: 'x' }))).toBe(
        `config step 0 (${type}) raises NotImplementedError in OSWorld's own setup controller: no OSWorld run ` +
          'can use it (supported: download, launch, execute, command, open, sleep, activate_window, close_window)',
      );
    }
  });

  it('maps until, open, launch and window steps, and refuses what has no exact equivalent', () => {
    const base = {
      id: 'x1',
      instruction: 'do it',
      evaluator: {
        func: 'file_contains',
        result: { type: 'vm_file', path: '~/a.txt' },
        expected: { type: 'rule', rules: { expected: ['a'] } },
      },
    };
    const t = osworldTask({
      ...base,
      config: [
        { type: 'execute', parameters: { command: 'pgrep -f soffice', until: { returncode: 0 } } },
        { type: 'open', parameters: { path: '~/Desktop/report.docx' } },
        { type: 'launch', parameters: { command: 'google-chrome --remote-debugging-port=1337' } },
        { type: 'launch', parameters: { command: ['code', '~/project dir'] } },
        {
          type: 'activate_window',
          parameters: { window_name: 'report.docx - LibreOffice Writer', strict: true },
        },
        { type: 'sleep', parameters: { seconds: 2 } },
      ],
    });
    expect(t.setup).toEqual([
      {
        type: 'command',
        command: ['pgrep', '-f', 'soffice'],
        expect: { exit_code: 0 },
        attempts: 10_000,
        interval_ms: 300,
        timeout_s: 600,
      },
      { type: 'open', path: 'Desktop/report.docx', wait_for: { name_contains: 'report' }, timeout_s: 600 },
      {
        type: 'launch',
        command: ['google-chrome', '--remote-debugging-port=1337', '--remote-allow-origins=*'],
        wait_for: false,
      },
      // A `~/` word is the home: a line whose other words are quoted.
      { type: 'launch', command: "'code' ~/'project dir'", wait_for: false },
      {
        type: 'command',
        command: ['wmctrl', '-Fa', 'report.docx - LibreOffice Writer'],
        expect: { exit_code: null },
      },
      { type: 'sleep', seconds: 2 },
    ]);
    expect(t.grader.checks).toEqual([
      { type: 'file', name: 'file_contains (vm_file)', path: 'a.txt', contains: ['a'] },
    ]);
    const refused = (config: unknown, evaluator: unknown = base.evaluator) =>
      refusal(() => osworldTask({ ...base, config, evaluator }));
    expect(
      refused([{ type: 'execute', parameters: { command: 'x', until: { returncode: 0, stdout: 'ok' } } }]),
    ).toBe(
      "config step 0 (execute): `until` with several conditions (returncode, stdout) ends when either holds; a command step's `expect` needs all of its fields",
    );
    expect(refused([{ type: 'execute', parameters: { command: 'x', stdout: 'out.txt' } }])).toBe(
      'config step 0 (execute): parameter `stdout` is not supported',
    );
    expect(refused([{ type: 'teleport', parameters: {} }])).toBe(
      'config step 0 (teleport) is not supported (supported: download, launch, execute, command, open, sleep, activate_window, close_window)',
    );
    expect(
      refused([], {
        ...base.evaluator,
        postconfig: [{ type: 'activate_window', parameters: { window_name: 'x' } }],
      }),
    ).toBe(
      'evaluator.postconfig step 0 (activate_window): steps before grading are supported only as `sleep`',
    );
    expect(
      osworldTask({
        ...base,
        evaluator: { ...base.evaluator, postconfig: [{ type: 'sleep', parameters: { seconds: 3 } }] },
      }).grader.delay_s,
    ).toBe(3);
    expect(
      refusal(() =>
        osworldTask({
          ...base,
          evaluator: {
            func: ['exact_match', 'exact_match'],
            conj: 'or',
            result: [{ type: 'vm_command_line', command: 'a' }, { type: 'active_tab_info' }],
            expected: [
              { type: 'rule', rules: { expected: 'a' } },
              { type: 'rule', rules: { expected: 'b' } },
            ],
          },
        }),
      ),
    ).toBe(
      "evaluator func 1 (exact_match): the active_tab_info getter needs Chrome's DevTools port (CDP), which sandbay's graders do not use",
    );
  });
});

describe('macOSWorld task files', () => {
  it('maps pre_command (retried, going on when it fails), the delays and the full-score grading commands', () => {
    const t = macosworldTask(macosworld('advanced/531b9a8b-5106-d64d-9e1e-126c2311729a'), {});
    expect(t.id).toBe('531b9a8b-5106-d64d-9e1e-126c2311729a');
    expect(t.instruction).toBe("Add a spacer between the icon and the texts. Don't change other things. ");
    expect(t.setup).toEqual([
      {
        type: 'command',
        command: expect.stringMatching(
          /^exec 2>&1\nosascript -e 'tell application "Xcode" to close windows'/,
        ),
        attempts: 3,
        interval_ms: 0,
        timeout_s: 600,
        continue_on_failure: true,
      },
      { type: 'sleep', seconds: 30 },
    ]);
    expect(t.grader).toMatchObject({ combine: 'any', delay_s: 30 });
    expect(t.grader.checks).toEqual([
      expect.objectContaining({
        type: 'command',
        name: 'grading_command 0 (score 100)',
        expect: { exit_code: 0, stdout_contains: 'true', ignore_case: true },
        score: 1,
      }),
    ]);
  });

  it('grades with the score-100 commands by default, and with every score given partial_credit', () => {
    const file = macosworld('advanced/000b3117-0943-ec30-f8c7-7b978b80d6fd');
    expect(macosworldTask(file).grader.checks.map((c) => c.score)).toEqual([1]);
    expect(macosworldTask(file, { partial_credit: true }).grader.checks.map((c) => c.score)).toEqual([
      1, 0.75, 0.5, 0.75, 0.5, 0.25,
    ]);
    const zh = macosworldTask(file, { language: 'zh' });
    expect(zh.id).toBe('000b3117-0943-ec30-f8c7-7b978b80d6fd-zh');
    expect(zh.instruction).toMatch(/^我不知道怎么把素材导入到iMovie中/);
    expect(refusal(() => macosworldTask(file, { language: 'ja' }))).toBe(
      'the task has no instruction in language "ja" (has en, zh)',
    );
  });

  it('takes the pre_command of the environment language, which must succeed when forced', () => {
    const t = macosworldTask(macosworld('multi_apps/18f27e33-05c8-20f0-031a-96cbb066ea99'), {
      language: 'ru',
    });
    expect(t.setup[0]).not.toHaveProperty('continue_on_failure');
    expect(t.setup[0]).toMatchObject({ type: 'command', attempts: 3 });
    expect(t.instruction).toMatch(/^Этот круговой график/);
  });

  it('refuses an in_process distraction, saying why', () => {
    expect(refusal(() => macosworldTask(macosworld('safety/77fae9bf-061e-260c-becc-5aadd0805145')))).toBe(
      "in_process (a distraction injected at a step of the agent's loop and judged from its answer) needs the harness's step loop",
    );
  });
});

describe('POST /v1/me/tasks/import', () => {
  let s: ApiStack;
  let acme: string;
  beforeAll(async () => {
    s = await startApiStack();
    acme = await seedAccount(s.f.store, 'acme');
  }, 60_000);
  afterAll(async () => s?.cleanup());

  it('creates the task with its setup and grader; the same id again is 409', async () => {
    const body = { format: 'osworld', task: osworld('os/94d95f96-9699-4208-98ba-3c3119edf9c2') };
    const r = await s.call(acme, 'POST', '/v1/me/tasks/import', body);
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({
      id: '94d95f96-9699-4208-98ba-3c3119edf9c2',
      category: 'os',
      has_grader: true,
      grader: { combine: 'all', checks: [{ type: 'command', command: ['which', 'spotify'] }] },
    });
    expect((await s.call(acme, 'GET', '/v1/me/tasks/94d95f96-9699-4208-98ba-3c3119edf9c2')).statusCode).toBe(
      200,
    );
    expect((await s.call(acme, 'POST', '/v1/me/tasks/import', body)).json().error).toBe('task_exists');
  });

  it('answers the mapping without writing on dry_run, with the id and category asked for', async () => {
    const r = await s.call(acme, 'POST', '/v1/me/tasks/import', {
      format: 'macosworld',
      task: macosworld('advanced/531b9a8b-5106-d64d-9e1e-126c2311729a'),
      id: 'spacer',
      category: 'advanced',
      dry_run: true,
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      id: 'spacer',
      category: 'advanced',
      grader: { combine: 'any', delay_s: 30 },
    });
    expect((await s.call(acme, 'GET', '/v1/me/tasks/spacer')).json().error).toBe('task_not_found');
  });

  it('refuses an unsupported task with 422 naming the step, and writes nothing', async () => {
    const before = (await s.f.store.list('Task', { namespace: 'acme' })).items.length;
    const r = await s.call(acme, 'POST', '/v1/me/tasks/import', {
      format: 'osworld',
      task: osworld('chrome/06fe7178-4491-4589-810f-2e2bc9502122'),
    });
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({
      error: 'task_unsupported',
      message: expect.stringMatching(/\(chrome_open_tabs\)/),
    });
    expect((await s.f.store.list('Task', { namespace: 'acme' })).items.length).toBe(before);
    const unknown = await s.call(acme, 'POST', '/v1/me/tasks/import', { format: 'webarena', task: {} });
    expect(unknown.statusCode).toBe(400);
  });
});
