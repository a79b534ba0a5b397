// Graders: how a sandbox's state is turned into a reward in [0, 1], as data (docs/evaluation.md).
// One schema for a Task's `spec.grader`, `POST /v1/sandboxes/{id}/grade`, the replay reconciler and
// the importers: macOSWorld's `grading_command` `[[command, score]]` is an `any` of `command` checks
// with those scores (/100); OSWorld's evaluator `func` list with `conj` is an `all` or an `any`.
//
// A check passes or not, and earns its `score` (default 1) when it passes, 0 otherwise (a `command`
// check with `reward_from_stdout` earns the number it prints). The grader combines the checks'
// rewards: `all` the smallest (so 1 only when every check passed with score 1), `any` the largest,
// `weighted` the mean weighted by `weight`. The runner is operator/evaluation/graders.ts.
import Type, { type Static } from 'typebox';
import {
  CommandExpect,
  GuestCommand,
  MAX_STEP_TIMEOUT_S,
  WindowMatch,
  containsAll,
  containsNone,
} from './setup-step.ts';

export const GRADER_CHECK_TYPES = ['command', 'window', 'file'] as const;
export type GraderCheckType = (typeof GRADER_CHECK_TYPES)[number];
export const GRADER_COMBINE = ['all', 'any', 'weighted'] as const;
export const MAX_GRADER_CHECKS = 100;

/** Fields every check has besides its own. */
const common = {
  name: Type.Optional(
    Type.String({ maxLength: 200, description: 'A label for people, shown with the check’s result.' }),
  ),
  score: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'The reward the check earns when it passes (default 1).',
    }),
  ),
  weight: Type.Optional(
    Type.Number({ minimum: 0, maximum: 1_000_000, description: 'Its weight under `weighted` (default 1).' }),
  ),
};

export const CommandCheck = Type.Object(
  {
    type: Type.Literal('command', { description: '`command`: run a command; its result decides.' }),
    command: GuestCommand,
    expect: Type.Optional(CommandExpect),
    reward_from_stdout: Type.Optional(
      Type.Boolean({
        description:
          'The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold.',
      }),
    ),
    timeout_s: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: MAX_STEP_TIMEOUT_S,
        description: "The command's deadline in seconds (default 120; a timeout fails the check).",
      }),
    ),
    ...common,
  },
  {
    additionalProperties: false,
    description: 'Passes when the command’s result meets `expect` (default: exit 0).',
  },
);

export const WindowCheck = Type.Object(
  {
    type: Type.Literal('window', { description: '`window`: a node of the window tree.' }),
    match: WindowMatch,
    absent: Type.Optional(
      Type.Boolean({ description: 'Pass when no node matches (a window was closed) instead.' }),
    ),
    ...common,
  },
  { additionalProperties: false, description: 'Passes when a node of the window tree matches.' },
);

export const FileCheck = Type.Object(
  {
    type: Type.Literal('file', { description: '`file`: a file in the VM.' }),
    path: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "The file (relative paths are in the VM user's home).",
    }),
    exists: Type.Optional(
      Type.Boolean({ description: 'The file exists (default true); `false`: pass when it does not.' }),
    ),
    equals: Type.Optional(
      Type.String({
        maxLength: 1_000_000,
        description: 'Its content, without trailing newlines, is exactly this.',
      }),
    ),
    contains: Type.Optional(containsAll('Its content contains this (an array: every one of these).')),
    excludes: Type.Optional(containsNone('Its content contains none of these.')),
    matches: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'Its content matches this regular expression (RE2 syntax).',
      }),
    ),
    ignore_case: Type.Optional(
      Type.Boolean({ description: 'Compare `equals`, `contains` and `matches` ignoring case.' }),
    ),
    json_path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          'The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several).',
      }),
    ),
    json_equals: Type.Optional(
      Type.Unknown({ description: 'The value `json_path` selects equals this JSON value.' }),
    ),
    ...common,
  },
  { additionalProperties: false, description: 'Passes when the file is as described (read up to 8 MiB).' },
);

export const GraderCheck = Type.Union([CommandCheck, WindowCheck, FileCheck], {
  description: 'One check; `type` says which kind.',
});
export type GraderCheck = Static<typeof GraderCheck>;
export type CommandCheck = Static<typeof CommandCheck>;
export type WindowCheck = Static<typeof WindowCheck>;
export type FileCheck = Static<typeof FileCheck>;

export const GRADER_CHECK_SCHEMAS = { command: CommandCheck, window: WindowCheck, file: FileCheck } as const;

export const Grader = Type.Object(
  {
    combine: Type.Optional(
      Type.Enum([...GRADER_COMBINE], {
        description:
          '`all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.',
      }),
    ),
    delay_s: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: MAX_STEP_TIMEOUT_S,
        description:
          'Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`).',
      }),
    ),
    checks: Type.Array(GraderCheck, {
      minItems: 1,
      maxItems: MAX_GRADER_CHECKS,
      description: 'The checks, evaluated in order (each is reported).',
    }),
  },
  { additionalProperties: false, description: 'Checks combined into a reward in [0, 1].' },
);
export type Grader = Static<typeof Grader>;

/** A task's grader: a shell script (exit 0 → reward 1, the original form) or a Grader. */
export const TaskGrader = Type.Union(
  [
    Type.String({
      maxLength: 1_000_000,
      description: 'A shell script whose exit code 0 means success (reward 1).',
    }),
    Grader,
  ],
  { description: 'A shell script (exit 0 → reward 1) or a grader of checks.' },
);
export type TaskGrader = Static<typeof TaskGrader>;

export const CheckResult = Type.Object({
  index: Type.Integer({ description: 'Position of the check, from 0.' }),
  type: Type.String({ description: 'The check kind.' }),
  name: Type.Optional(Type.String({ description: 'The check’s label, if it has one.' })),
  passed: Type.Boolean({ description: 'Whether it passed.' }),
  reward: Type.Number({ description: 'What it earned (0 to 1).' }),
  weight: Type.Number({ description: 'Its weight (under `weighted`).' }),
  message: Type.String({ description: 'Why it passed or failed, for people.' }),
  exit_code: Type.Optional(Type.Integer({ description: '`command`: the exit code.' })),
  stdout: Type.Optional(Type.String({ description: '`command`: the end of its stdout (at most 2 KiB).' })),
});
export type CheckResult = Static<typeof CheckResult>;

export const GradeResult = Type.Object({
  reward: Type.Number({ minimum: 0, maximum: 1, description: 'The reward, in [0, 1].' }),
  combine: Type.Enum([...GRADER_COMBINE], { description: 'How the checks were combined.' }),
  duration_ms: Type.Integer({ description: 'How long grading took.' }),
  checks: Type.Array(CheckResult, { description: 'Each check, in order.' }),
});
export type GradeResult = Static<typeof GradeResult>;
