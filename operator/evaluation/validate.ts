// Checks setup steps and graders before anything runs, with errors that name the step or check and
// what is wrong with it: `setup step 2 has an unknown type "frobnicate" (known: download, …)`, not a
// schema union's "must match a schema in anyOf". The API calls this ahead of its schema validation
// (and for task edits), the replay reconciler on what a task holds, so a bad step never half-runs.
// Beyond the schemas: a download names exactly one source, a URL is http(s), every regular expression
// is RE2 (matchers.ts) and every JSONPath is one the evaluator takes.
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  GRADER_CHECK_SCHEMAS,
  GRADER_COMBINE,
  MAX_GRADER_CHECKS,
  MAX_SETUP_STEPS,
  MAX_STEP_TIMEOUT_S,
  SETUP_STEP_SCHEMAS,
  type Grader,
  type GraderCheck,
  type SetupStep,
  type TaskGrader,
  type WindowMatch,
} from '../../crds/index.ts';
import { compilePattern } from './matchers.ts';

export type InputErrorCode = 'invalid_setup_step' | 'invalid_grader';

/** A step or grader that cannot run: the API answers it as 400 with this code and message. */
export class EvaluationInputError extends Error {
  override name = 'EvaluationInputError';
  readonly code: InputErrorCode;
  constructor(code: InputErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

type Checker = ReturnType<typeof Compile>;
const compiled = new Map<TSchema, Checker>();
function checkerOf(schema: TSchema): Checker {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = Compile(schema)));
  return c;
}

interface SchemaError {
  keyword: string;
  instancePath: string;
  message: string;
  params: { additionalProperties?: string[]; requiredProperties?: string[] };
}

/** The most telling schema error, as `field: problem`. */
function firstProblem(schema: TSchema, value: unknown): string | undefined {
  const errors = [...checkerOf(schema).Errors(value)] as unknown as SchemaError[];
  if (errors.length === 0) return undefined;
  const field = (e: SchemaError) => e.instancePath.slice(1).replaceAll('/', '.') || 'it';
  const extra = errors.find((e) => e.keyword === 'additionalProperties');
  if (extra)
    return `unknown field ${(extra.params.additionalProperties ?? []).map((f) => `\`${f}\``).join(', ')}`;
  const missing = errors.find((e) => e.keyword === 'required');
  if (missing)
    return `${field(missing)} needs ${(missing.params.requiredProperties ?? []).map((f) => `\`${f}\``).join(', ')}`;
  // A union's own "must match a schema in anyOf" says less than the branch errors before it.
  const e = errors.find((x) => x.keyword !== 'anyOf') ?? errors[0]!;
  return `${field(e)} ${e.message}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function patternProblem(pattern: string | undefined, field: string): string | undefined {
  if (pattern === undefined) return undefined;
  try {
    compilePattern(pattern);
    return undefined;
  } catch (err) {
    return `${field} is not an RE2 regular expression: ${(err as Error).message}`;
  }
}

function windowMatchProblem(m: WindowMatch | false | undefined, field: string): string | undefined {
  return m ? patternProblem(m.name_matches, `${field}.name_matches`) : undefined;
}

/** One step's problem beyond its schema. */
function stepProblem(step: SetupStep): string | undefined {
  switch (step.type) {
    case 'download': {
      if ((step.url === undefined) === (step.blob === undefined))
        return 'needs exactly one of `url` and `blob`';
      if (step.url !== undefined) {
        let url: URL;
        try {
          url = new URL(step.url);
        } catch {
          return `url ${JSON.stringify(step.url)} is not a URL`;
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be http or https';
      }
      return undefined;
    }
    case 'launch':
    case 'open':
      return windowMatchProblem(step.wait_for, 'wait_for');
    case 'command':
      return patternProblem(step.expect?.stdout_matches, 'expect.stdout_matches');
    case 'sleep':
      return undefined;
  }
}

/** `setup step 2 (download)`, or `setup step 2` when its type is unusable. */
function label(what: string, i: number, type?: string): string {
  return type === undefined ? `${what} ${i}` : `${what} ${i} (${type})`;
}

/**
 * Checks each item of a list of `type`-tagged objects (steps, checks) against its kind's schema and
 * `problem`; `fail` makes the error naming the first bad one.
 */
function checkTagged<T extends { type: string }>(
  items: unknown[],
  what: string,
  schemas: Record<string, TSchema>,
  problem: (item: T) => string | undefined,
  fail: (message: string) => EvaluationInputError,
): void {
  const types = Object.keys(schemas);
  items.forEach((item: unknown, i) => {
    if (!isObject(item)) throw fail(`${label(what, i)} is not an object`);
    const type = item.type;
    if (typeof type !== 'string')
      throw fail(`${label(what, i)} has no \`type\` (one of ${types.join(', ')})`);
    if (!Object.hasOwn(schemas, type))
      throw fail(
        `${label(what, i)} has an unknown type ${JSON.stringify(type)} (known: ${types.join(', ')})`,
      );
    const found = firstProblem(schemas[type]!, item) ?? problem(item as T);
    if (found) throw fail(`${label(what, i, type)}: ${found}`);
  });
}

/** The steps, checked; throws EvaluationInputError naming the first bad one. */
export function checkSetupSteps(steps: unknown): SetupStep[] {
  const fail = (message: string) => new EvaluationInputError('invalid_setup_step', message);
  if (!Array.isArray(steps)) throw fail('setup must be an array of steps');
  if (steps.length > MAX_SETUP_STEPS)
    throw fail(`setup has ${steps.length} steps; at most ${MAX_SETUP_STEPS}`);
  checkTagged<SetupStep>(steps, 'setup step', SETUP_STEP_SCHEMAS, stepProblem, fail);
  return steps as SetupStep[];
}

/** JSONPath as the evaluator takes it: from the root, without script or filter expressions. */
function jsonPathProblem(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  if (!path.startsWith('$')) return 'json_path must start with `$`';
  if (path.includes('(')) return 'json_path may not use filter or script expressions';
  return undefined;
}

function checkProblem(check: GraderCheck): string | undefined {
  switch (check.type) {
    case 'command':
      return patternProblem(check.expect?.stdout_matches, 'expect.stdout_matches');
    case 'window':
      return windowMatchProblem(check.match, 'match');
    case 'file':
      if (check.json_equals !== undefined && check.json_path === undefined)
        return '`json_equals` needs `json_path`';
      return patternProblem(check.matches, 'matches') ?? jsonPathProblem(check.json_path);
  }
}

/** A grader object, checked; throws EvaluationInputError naming the first bad check. */
export function checkGrader(grader: unknown): Grader {
  const fail = (message: string) => new EvaluationInputError('invalid_grader', message);
  if (!isObject(grader)) throw fail('a grader is an object `{combine?, checks: [...]}` (or a shell script)');
  for (const key of Object.keys(grader))
    if (key !== 'combine' && key !== 'checks' && key !== 'delay_s')
      throw fail(`unknown grader field \`${key}\``);
  const delayS = grader.delay_s;
  if (delayS !== undefined && (typeof delayS !== 'number' || !(delayS >= 0 && delayS <= MAX_STEP_TIMEOUT_S)))
    throw fail(`delay_s must be a number of seconds from 0 to ${MAX_STEP_TIMEOUT_S}`);
  if (grader.combine !== undefined && !(GRADER_COMBINE as readonly unknown[]).includes(grader.combine))
    throw fail(`unknown combine ${JSON.stringify(grader.combine)} (known: ${GRADER_COMBINE.join(', ')})`);
  const checks = grader.checks;
  if (!Array.isArray(checks) || checks.length === 0)
    throw fail('a grader needs `checks`: at least one check');
  if (checks.length > MAX_GRADER_CHECKS) throw fail(`a grader has at most ${MAX_GRADER_CHECKS} checks`);
  checkTagged<GraderCheck>(checks, 'check', GRADER_CHECK_SCHEMAS, checkProblem, fail);
  return grader as Grader;
}

/** A task's grader: a shell script as it is, or a grader object checked. */
export function checkTaskGrader(grader: unknown): TaskGrader {
  return typeof grader === 'string' ? grader : checkGrader(grader);
}

/** The script form as a grader: one command check, exit 0 → reward 1 (the original semantics). */
export function graderOf(grader: TaskGrader, scriptTimeoutS: number): Grader {
  if (typeof grader !== 'string') return grader;
  return { checks: [{ type: 'command', name: 'grader script', command: grader, timeout_s: scriptTimeoutS }] };
}
