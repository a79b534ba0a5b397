// Setup steps: what is done to a sandbox before a task starts, as data (docs/evaluation.md). One
// schema for every place that takes them: a Task's `spec.setup`, `POST /v1/sandboxes/{id}/setup`,
// the replay reconciler, and the importers (OSWorld's `download`, `launch`, `execute`/`command`,
// `open`, `sleep` config steps and macOSWorld's `pre_command` map onto these kinds one to one).
//
// Steps are stored as the API takes them (snake_case, like a trajectory step's `args`): a step is
// data a user wrote, not a field of the resource's own. Each kind is one object with a `type`; the
// runner is operator/evaluation/steps.ts.
import Type, { type Static } from 'typebox';

/** The step kinds, in the order the docs list them. */
export const SETUP_STEP_TYPES = ['download', 'launch', 'open', 'command', 'sleep'] as const;
export type SetupStepType = (typeof SETUP_STEP_TYPES)[number];

/** A step's own limit, and the most any step or a whole setup may take. */
export const MAX_STEP_TIMEOUT_S = 3600;
/** A setup or a grading may take this long in all unless the request says otherwise. */
export const DEFAULT_EVALUATION_TIMEOUT_S = 600;
/** Steps of one setup, checks of one grader. */
export const MAX_SETUP_STEPS = 100;

const text = (description: string, max = 100_000) => Type.String({ maxLength: max, description });

/** Text to find: one string, or several that must all be there (OSWorld's `include`). */
export const containsAll = (description: string) =>
  Type.Union(
    [
      text('The text.'),
      Type.Array(text('One text.'), { minItems: 1, maxItems: 100, description: 'Every one of these.' }),
    ],
    { description },
  );

/** Texts none of which may be there (OSWorld's `exclude`). */
export const containsNone = (description: string) =>
  Type.Array(text('One text.'), { maxItems: 100, description });

const timeout = (fallback: number) =>
  Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_STEP_TIMEOUT_S,
      description: `The step's deadline in seconds (default ${fallback}); the whole setup's deadline bounds it too.`,
    }),
  );

/** A command as a shell line (run by the guest user's shell) or as argv (each word quoted for it). */
export const GuestCommand = Type.Union(
  [
    Type.String({ minLength: 1, maxLength: 1_000_000, description: 'A shell command line.' }),
    Type.Array(Type.String({ maxLength: 100_000, description: 'One word.' }), {
      minItems: 1,
      maxItems: 1000,
      description: 'argv: the program and its arguments, each passed as one word.',
    }),
  ],
  { description: 'A shell command line, or argv (program and arguments).' },
);
export type GuestCommand = Static<typeof GuestCommand>;

/**
 * What a node of the window tree (`GET …/display/windows`: top-level windows and their
 * accessibility children) must be to match. Every field given must hold; at least one is given.
 */
export const WindowMatch = Type.Object(
  {
    name: Type.Optional(text('The node is named exactly this.', 10_000)),
    name_contains: Type.Optional(text("The node's name contains this.", 10_000)),
    name_matches: Type.Optional(
      text("The node's name matches this regular expression (RE2 syntax: no backreferences).", 1000),
    ),
    role: Type.Optional(text('The node has this role (`window`, `push button`, `terminal`, …).', 200)),
    app: Type.Optional(text("The node's application (its window class on Linux).", 1000)),
    focused: Type.Optional(Type.Boolean({ description: 'The node has (or has not) the keyboard focus.' })),
    ignore_case: Type.Optional(
      Type.Boolean({
        description: 'Compare `name`, `name_contains`, `name_matches` and `app` ignoring case.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, description: 'A node of the window tree.' },
);
export type WindowMatch = Static<typeof WindowMatch>;

/** What a command's result must be. Every field given must hold. */
export const CommandExpect = Type.Object(
  {
    exit_code: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 255 }), Type.Null()], {
        description: 'The exit code the command must end with (default 0); `null` accepts any.',
      }),
    ),
    stdout_contains: Type.Optional(
      containsAll('Standard output contains this (an array: every one of these).'),
    ),
    stdout_excludes: Type.Optional(containsNone('Standard output contains none of these.')),
    stdout_equals: Type.Optional(text('Standard output, without its trailing newlines, is exactly this.')),
    stdout_matches: Type.Optional(
      text('Standard output matches this regular expression (RE2 syntax).', 1000),
    ),
    stderr_contains: Type.Optional(
      containsAll('Standard error contains this (an array: every one of these).'),
    ),
    stderr_excludes: Type.Optional(containsNone('Standard error contains none of these.')),
    ignore_case: Type.Optional(
      Type.Boolean({ description: 'Compare the stdout and stderr expectations ignoring case.' }),
    ),
  },
  { additionalProperties: false, description: 'What the command must do; by default, exit 0.' },
);
export type CommandExpect = Static<typeof CommandExpect>;

const stepType = <T extends SetupStepType>(type: T, description: string) =>
  Type.Literal(type, { description });

export const DownloadStep = Type.Object(
  {
    type: stepType('download', '`download`: put a URL or an uploaded blob into the VM.'),
    path: Type.String({
      minLength: 1,
      maxLength: 4096,
      description:
        "Where to write it in the VM (relative paths are in the VM user's home); parents are created.",
    }),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description: 'An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in.',
      }),
    ),
    blob: Type.Optional(
      Type.String({
        pattern: '^sha256-[0-9a-f]{64}$',
        description: 'An uploaded blob of the account (`POST /v1/blobs`), by its id.',
      }),
    ),
    sha256: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: 'The SHA-256 the bytes must have (the file is removed and the step fails otherwise).',
      }),
    ),
    executable: Type.Optional(Type.Boolean({ description: 'Make the file executable (`chmod +x`).' })),
    timeout_s: timeout(600),
  },
  { additionalProperties: false, description: 'Exactly one of `url` and `blob`.' },
);

export const LaunchStep = Type.Object(
  {
    type: stepType('launch', '`launch`: start an app in the desktop session and wait for its window.'),
    command: GuestCommand,
    wait_for: Type.Optional(
      Type.Union([WindowMatch, Type.Literal(false, { description: 'Do not wait.' })], {
        description:
          'The window to wait for; default: any new top-level window. `false` returns once started.',
      }),
    ),
    timeout_s: timeout(60),
  },
  { additionalProperties: false, description: 'Starts `command` in the background of the GUI session.' },
);

export const OpenStep = Type.Object(
  {
    type: stepType(
      'open',
      '`open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).',
    ),
    path: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "The file (relative paths are in the VM user's home), or a URL.",
    }),
    wait_for: Type.Optional(
      Type.Union([WindowMatch, Type.Literal(false, { description: 'Do not wait.' })], {
        description:
          "The window to wait for; default: a window whose name contains the file's name. `false` does not wait.",
      }),
    ),
    timeout_s: timeout(60),
  },
  { additionalProperties: false, description: 'Opens a file as a double click in the file manager would.' },
);

export const CommandStep = Type.Object(
  {
    type: stepType('command', '`command`: run a command and check its result.'),
    command: GuestCommand,
    expect: Type.Optional(CommandExpect),
    attempts: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description:
          'Run it again until `expect` holds, at most this many times (default 1), within the deadline.',
      }),
    ),
    interval_ms: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 60_000, description: 'Pause between attempts (default 500).' }),
    ),
    continue_on_failure: Type.Optional(
      Type.Boolean({
        description:
          'When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`).',
      }),
    ),
    timeout_s: timeout(120),
  },
  { additionalProperties: false, description: 'Runs over the VM’s SSH like `POST …/exec`.' },
);

export const SleepStep = Type.Object(
  {
    type: stepType('sleep', '`sleep`: wait.'),
    seconds: Type.Number({ minimum: 0, maximum: MAX_STEP_TIMEOUT_S, description: 'How long.' }),
  },
  { additionalProperties: false, description: 'Waits (within the setup’s deadline).' },
);

export const SetupStep = Type.Union([DownloadStep, LaunchStep, OpenStep, CommandStep, SleepStep], {
  description: 'One setup step; `type` says which kind.',
});
export type SetupStep = Static<typeof SetupStep>;
export type DownloadStep = Static<typeof DownloadStep>;
export type LaunchStep = Static<typeof LaunchStep>;
export type OpenStep = Static<typeof OpenStep>;
export type CommandStep = Static<typeof CommandStep>;
export type SleepStep = Static<typeof SleepStep>;

/** The schema of each kind, by its `type` (what the validator checks a step against). */
export const SETUP_STEP_SCHEMAS = {
  download: DownloadStep,
  launch: LaunchStep,
  open: OpenStep,
  command: CommandStep,
  sleep: SleepStep,
} as const;

export const SetupSteps = Type.Array(SetupStep, {
  maxItems: MAX_SETUP_STEPS,
  description: 'Setup steps, run in order; the first that fails stops the setup.',
});

/** What one step did. */
export const StepResult = Type.Object({
  index: Type.Integer({ description: 'Position of the step, from 0.' }),
  type: Type.String({ description: 'The step kind.' }),
  status: Type.Enum(['ok', 'failed', 'skipped'], {
    description: '`ok`, `failed` (the setup stops here) or `skipped` (not reached).',
  }),
  duration_ms: Type.Integer({ description: 'How long it took.' }),
  message: Type.Optional(Type.String({ description: 'What happened, for people (why it failed).' })),
  attempts: Type.Optional(Type.Integer({ description: '`command`: how many times it ran.' })),
  exit_code: Type.Optional(Type.Integer({ description: '`command`: the exit code of its last run.' })),
  bytes: Type.Optional(Type.Integer({ description: '`download`: bytes written.' })),
  window: Type.Optional(
    Type.String({ description: '`launch`, `open`: the name of the window that was waited for.' }),
  ),
});
export type StepResult = Static<typeof StepResult>;

export const SetupResult = Type.Object({
  status: Type.Enum(['completed', 'failed'], { description: '`completed` when every step succeeded.' }),
  failed_step: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The index of the step that failed; null when none did.',
  }),
  message: Type.String({ description: 'What happened (which step failed and why), for people.' }),
  duration_ms: Type.Integer({ description: 'How long the setup took.' }),
  steps: Type.Array(StepResult, { description: 'Each step, in order.' }),
});
export type SetupResult = Static<typeof SetupResult>;
