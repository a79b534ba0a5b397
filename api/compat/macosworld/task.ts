// A macOSWorld task file (tasks/<category>/<id>.json) as a sandbay Task, mapped on what its harness
// does with it (utils/run_task.py, utils/evaluator.py, testbench.py):
//
// - `task[language]` is the instruction (the harness skips a task without that language; here it
//   is refused, naming the languages it has).
// - `pre_command` (a string, or one per environment language) runs up to `pre_command_max_trials`
//   (3) times until it exits 0; without `force_error_free_prep` the task goes on even when it never
//   does: a `command` step with `attempts: 3` and `continue_on_failure`. Its output is stdout and
//   stderr together (ssh's check_output with stderr=STDOUT).
// - `before_action_delay_seconds`: a `sleep` step last.
// - `grading_command` `[[command, score]]`: the evaluator runs them in order and answers the score
//   of the first whose output contains "true" (any case); by default (`binary_grading`) only those
//   of score 100 are tried. Here: an `any` of `command` checks, each `{exit_code: 0, stdout_contains:
//   "true", ignore_case}` with its score / 100, the largest passing score being the reward (with
//   `options.partial_credit`, every command with its score; by default only the score-100 ones, as
//   the harness grades). The command runs with stderr joined to stdout, as there. One difference:
//   a command that exits non-zero makes macOSWorld's evaluation an error (`eval_failed`); here that
//   check earns 0 and says so.
// - `before_grading_delay_seconds`: the grader's `delay_s`.
// - `in_process` (a distraction injected at a step of the agent's loop, judged from its answer) needs
//   the harness's step loop: refused. `snapshot` names macOSWorld's AMI per language (the sandbox's
//   image is the reservation's); `force_snapshot_recovery` and `force_ec2` are the harness's.
import type { CommandCheck, Grader, SetupStep } from '../../../crds/index.ts';
import { isObject, refuse, taskIdOf, type ImportOptions, type ImportedTask } from '../imported-task.ts';

/** testbench.py's `--pre_command_max_trials` default. */
const PRE_COMMAND_TRIALS = 3;
const PRE_COMMAND_TIMEOUT_S = 600;
const GRADING_COMMAND_TIMEOUT_S = 120;

/** Makes a command's stderr part of its stdout (the harness reads ssh's output with stderr=STDOUT). */
function joinedOutput(command: string): string {
  return `exec 2>&1\n${command}`;
}

function languages(task: Record<string, unknown>): string {
  return Object.keys(task).join(', ');
}

function preCommand(source: Record<string, unknown>, envLanguage: string): SetupStep[] {
  const pre = source.pre_command;
  if (pre === undefined || pre === null || pre === '') return [];
  let command: unknown = pre;
  if (isObject(pre)) {
    command = pre[envLanguage];
    if (command === undefined)
      refuse(`pre_command has no command for environment language "${envLanguage}" (has ${languages(pre)})`);
  }
  if (typeof command !== 'string') refuse('pre_command is neither a string nor one string per language');
  const forced = source.force_error_free_prep === true;
  return [
    {
      type: 'command',
      command: joinedOutput(command),
      attempts: PRE_COMMAND_TRIALS,
      interval_ms: 0,
      timeout_s: PRE_COMMAND_TIMEOUT_S,
      ...(!forced && { continue_on_failure: true }),
    },
  ];
}

function delay(source: Record<string, unknown>, name: string): number {
  const v = source[name];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !(v >= 0 && v <= 3600))
    refuse(`${name} must be a number of seconds from 0 to 3600`);
  return v;
}

function grader(source: Record<string, unknown>, partial: boolean): Grader {
  const list = source.grading_command;
  if (!Array.isArray(list) || list.length === 0) refuse('grading_command must be a list of [command, score]');
  const checks: CommandCheck[] = [];
  list.forEach((entry: unknown, i) => {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'number')
      refuse(`grading_command ${i} is not [command, score]`);
    const [command, score] = entry as [string, number];
    if (!(score >= 0 && score <= 100)) refuse(`grading_command ${i} has score ${score}, not 0 to 100`);
    if (!partial && score !== 100) return;
    checks.push({
      type: 'command',
      name: `grading_command ${i} (score ${score})`,
      command: joinedOutput(command),
      expect: { exit_code: 0, stdout_contains: 'true', ignore_case: true },
      score: score / 100,
      timeout_s: GRADING_COMMAND_TIMEOUT_S,
    });
  });
  if (checks.length === 0)
    refuse(
      'no grading_command has score 100 (the harness grades with those only; pass options.partial_credit)',
    );
  const wait = delay(source, 'before_grading_delay_seconds');
  return { combine: 'any', ...(wait > 0 && { delay_s: wait }), checks };
}

export function macosworldTask(source: unknown, options: ImportOptions = {}): ImportedTask {
  if (!isObject(source)) refuse('a macOSWorld task is a JSON object');
  const { id, task } = source;
  if (typeof id !== 'string' || id === '') refuse('the task has no `id`');
  if (!isObject(task)) refuse('the task has no `task` (its instruction per language)');
  const language = options.language ?? 'en';
  const instruction = task[language];
  if (typeof instruction !== 'string' || instruction.trim() === '')
    refuse(`the task has no instruction in language "${language}" (has ${languages(task)})`);
  if (source.in_process !== undefined)
    refuse(
      "in_process (a distraction injected at a step of the agent's loop and judged from its answer) needs the harness's step loop",
    );
  const setup = preCommand(source, options.env_language ?? language);
  const before = delay(source, 'before_action_delay_seconds');
  if (before > 0) setup.push({ type: 'sleep', seconds: before });
  return {
    id: taskIdOf(language === 'en' ? id : `${id}-${language}`),
    instruction,
    setup,
    grader: grader(source, options.partial_credit === true),
  };
}
