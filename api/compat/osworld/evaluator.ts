// OSWorld's `evaluator` (desktop_env/desktop_env.py `evaluate`, the getters and metrics of
// desktop_env/evaluators/) as a sandbay grader: each `func` with its `result` (and `expected`)
// getter becomes one check, and `conj` (`and` by default, or `or`) combines them as `all` / `any`,
// so the reward is OSWorld's score whenever each check is. Only the pairs that a command, file or
// window check computes exactly are taken; any other refuses the task, naming the func or getter.
//
// | func | result getter | expected | check |
// |---|---|---|---|
// | exact_match | vm_command_line {command, shell} | rule {expected} | `command`, stdout exactly `expected` (the whole output, newlines included) |
// | check_include_exclude | vm_command_line / vm_command_error | rule {include, exclude} | `command`, stdout (stderr) contains every `include`, no `exclude` |
// | file_contains | vm_file {path} | rule {expected: [...]} | `file`, contains every one |
//
// OSWorld's server runs a getter's command with a 120 s limit and any exit code (the output is what
// counts): so do these checks. A `postconfig` (steps OSWorld runs before grading) is taken when it only
// sleeps (the grader's `delay_s`).
import { RE2JS } from 're2js';
import type { Grader, GraderCheck } from '../../../crds/index.ts';
import { isObject, homePath, refuse } from '../imported-task.ts';
import { serverCommand } from './commands.ts';

/** Getters that read Chrome through its DevTools port (desktop_env/evaluators/getters/chrome.py). */
const CDP_GETTERS = new Set([
  'active_tab_info',
  'active_tab_html_parse',
  'active_tab_url_parse',
  'open_tabs_info',
  'page_info',
  'url_dashPart',
  'url_path_parse',
  'gotoRecreationPage_and_get_html_content',
  'number_of_search_results',
  'active_url_from_accessTree',
  'pdf_from_url',
  'info_from_website',
  'macys_product_url_parse',
  'enabled_experiments',
]);

const WHY_FUNC: Record<string, string> = {
  infeasible:
    "grades the agent's last action (FAIL), which sandbay's graders do not see: the task is infeasible by design",
};

const WHY_GETTER: Record<string, string> = {
  cloud_file: 'fetches the expected file from the internet at grading time',
  cache_file: 'reads a file a setup step left on the harness host',
  vm_terminal_output: "reads the terminal through the OSWorld server's accessibility bridge",
  accessibility_tree: 'compares CSS/XPath selectors over the accessibility tree',
};

/** The metric × result getter pairs taken. */
const SUPPORTED_PAIRS = [
  ['exact_match', 'vm_command_line'],
  ['check_include_exclude', 'vm_command_line'],
  ['check_include_exclude', 'vm_command_error'],
  ['file_contains', 'vm_file'],
] as const;
const SUPPORTED =
  'exact_match with vm_command_line, check_include_exclude with vm_command_line or vm_command_error, file_contains with vm_file';

/** Longest expected output `exact_match` is taken for (the pattern it becomes is at most 1000 characters). */
const MAX_PATTERN = 1000;

function rules(expected: unknown, where: string): Record<string, unknown> {
  if (!isObject(expected) || expected.type !== 'rule' || !isObject(expected.rules))
    refuse(`${where}: \`expected\` must be a \`rule\` getter with \`rules\``);
  return expected.rules;
}

function strings(v: unknown, name: string, where: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
    refuse(`${where}: \`${name}\` must be a list of strings`);
  return v as string[];
}

function getterType(g: unknown): string | undefined {
  return isObject(g) && typeof g.type === 'string' ? g.type : undefined;
}

/** Why a func or getter is refused, for the message. */
function refusal(func: string, result: unknown, where: string): never {
  if (WHY_FUNC[func]) refuse(`${where}: func ${func} ${WHY_FUNC[func]}`);
  const getter = getterType(result);
  if (getter && CDP_GETTERS.has(getter))
    refuse(
      `${where}: the ${getter} getter needs Chrome's DevTools port (CDP), which sandbay's graders do not use`,
    );
  if (getter && WHY_GETTER[getter]) refuse(`${where}: the ${getter} getter ${WHY_GETTER[getter]}`);
  refuse(
    `${where}: ${func} with the ${getter ?? 'missing'} getter is not supported (supported: ${SUPPORTED})`,
  );
}

function commandOf(result: Record<string, unknown>, where: string) {
  return serverCommand(result.command, result.shell, `${where} result`);
}

/** One func with its getters as one check. */
function check(
  func: string,
  result: unknown,
  expected: unknown,
  options: unknown,
  where: string,
): GraderCheck {
  const getter = getterType(result);
  const supported = SUPPORTED_PAIRS.some(([f, g]) => f === func && g === getter);
  if (!supported) return refusal(func, result, where);
  if (isObject(options) && Object.keys(options).length > 0)
    refuse(`${where}: options ${Object.keys(options).join(', ')} of ${func} are not supported`);
  const r = result as Record<string, unknown>;
  const name = `${func} (${getter})`;
  if (func === 'exact_match' && getter === 'vm_command_line') {
    const want = rules(expected, where).expected;
    if (typeof want !== 'string') refuse(`${where}: rules.expected must be a string`);
    const pattern = `\\A${RE2JS.quote(want)}\\z`;
    if (pattern.length > MAX_PATTERN)
      refuse(`${where}: the expected output is too long to compare exactly (${want.length} characters)`);
    return {
      type: 'command',
      name,
      command: commandOf(r, where),
      expect: { exit_code: null, stdout_matches: pattern },
    };
  }
  if (func === 'check_include_exclude' && (getter === 'vm_command_line' || getter === 'vm_command_error')) {
    const rule = rules(expected, where);
    const include = strings(rule.include, 'include', where);
    const exclude = strings(rule.exclude, 'exclude', where);
    const stream = getter === 'vm_command_line' ? 'stdout' : 'stderr';
    return {
      type: 'command',
      name,
      command: commandOf(r, where),
      expect: {
        exit_code: null,
        ...(include.length > 0 && { [`${stream}_contains`]: include }),
        ...(exclude.length > 0 && { [`${stream}_excludes`]: exclude }),
      },
    };
  }
  if (func === 'file_contains' && getter === 'vm_file') {
    if (r.multi) refuse(`${where}: vm_file with \`multi\` is not supported`);
    if (typeof r.path !== 'string' || r.path === '') refuse(`${where}: vm_file needs \`path\``);
    const want = strings(rules(expected, where).expected, 'expected', where);
    return { type: 'file', name, path: homePath(r.path), ...(want.length > 0 && { contains: want }) };
  }
  return refusal(func, result, where);
}

/** Seconds of a postconfig that only sleeps; refused otherwise. */
function postconfigDelay(postconfig: unknown): number {
  if (postconfig === undefined || postconfig === null) return 0;
  if (!Array.isArray(postconfig)) refuse('evaluator.postconfig is not a list of steps');
  return postconfig.reduce((sum: number, step: unknown, i) => {
    const type = isObject(step) ? step.type : undefined;
    const seconds = isObject(step) && isObject(step.parameters) ? step.parameters.seconds : undefined;
    if (type !== 'sleep')
      refuse(
        `evaluator.postconfig step ${i} (${String(type)}): steps before grading are supported only as \`sleep\``,
      );
    if (typeof seconds !== 'number' || seconds < 0)
      refuse(`evaluator.postconfig step ${i} (sleep): \`seconds\` must be a number`);
    return sum + seconds;
  }, 0);
}

/** OSWorld's evaluator as a grader. */
export function evaluatorGrader(evaluator: unknown): Grader {
  if (!isObject(evaluator)) refuse('`evaluator` is missing');
  const { func, result, expected, options, conj } = evaluator;
  const many = Array.isArray(func);
  const funcs = (many ? func : [func]) as unknown[];
  if (funcs.length === 0 || funcs.some((f) => typeof f !== 'string'))
    refuse('evaluator.func must name a metric');
  const nth = (v: unknown, i: number) => (many && Array.isArray(v) ? v[i] : v);
  const checks = (funcs as string[]).map((f, i) =>
    check(
      f,
      nth(result, i),
      nth(expected, i),
      nth(options, i),
      many ? `evaluator func ${i} (${f})` : `evaluator func ${f}`,
    ),
  );
  if (conj !== undefined && conj !== 'and' && conj !== 'or')
    refuse(`evaluator.conj ${JSON.stringify(conj)} is neither and nor or`);
  const delay = postconfigDelay(evaluator.postconfig);
  return {
    combine: conj === 'or' ? 'any' : 'all',
    ...(delay > 0 && { delay_s: delay }),
    checks,
  };
}
