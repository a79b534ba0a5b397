// An ATIF validator written from the text of Harbor's RFC 0001, "Agent Trajectory Interchange
// Format (ATIF) Specification" (v1.7, April 2026; `rfcs/0001-trajectory-format.md` in Harbor's
// repository), not from sandbay's own schema (api/schemas/atif.ts). Each rule names the RFC section
// it comes from. It checks what Harbor's `python -m harbor.utils.trajectory_validator` checks as the
// RFC describes it (Section VI, "Trajectory Validator"): the schema of Section II (required fields,
// types, no field outside its table: the RFC gives every object an `extra` for anything else),
// `step_id` sequential from 1, ISO 8601 timestamps, agent-only fields only on agent steps, every
// `source_call_id` naming a `tool_call_id` of its own step, and that referenced images exist. It
// also holds a document to the version it declares (Section I, "Version History"): a field a later
// minor added is not valid in an earlier one (image content parts need v1.6).
//
// It collects every problem rather than stopping at the first (as Section VI says the reference
// validator does) and returns them as `path: reason` lines.

/** The versions the RFC's Version History lists, oldest first. */
export const ATIF_VERSIONS = ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7'] as const;

export interface RfcValidationOptions {
  /**
   * The files stored beside `trajectory.json` (an archive's entry names). When given, every image
   * `path` that is not a URL or an absolute path must name one (Section II, ImageSourceSchema:
   * "Images are stored as separate files alongside the trajectory JSON file and referenced by path";
   * the reference validator checks they exist).
   */
  files?: ReadonlySet<string>;
  /**
   * The directory relative image paths must lie in, e.g. `images/` (Section II, "Image Storage
   * Convention": "images are typically stored in an `images/` subdirectory relative to the
   * trajectory file"). Unset: any relative path.
   */
  imageDir?: string;
}

type Json = Record<string, unknown>;

class Checker {
  readonly problems: string[] = [];
  readonly minor: number;
  readonly options: RfcValidationOptions;
  constructor(minor: number, options: RfcValidationOptions) {
    this.minor = minor;
    this.options = options;
  }

  fail(path: string, reason: string): void {
    this.problems.push(`${path}: ${reason}`);
  }

  /** Section I, Version History: a field added in v1.`since` is not part of an earlier version. */
  since(path: string, since: number): boolean {
    if (this.minor >= since) return true;
    this.fail(path, `added in ATIF-v1.${since}, not part of ATIF-v1.${this.minor}`);
    return false;
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

interface Field {
  /** Section II's "Status" column. */
  required?: boolean;
  /** The minor version that added the field (Section I). */
  since?: number;
  check?: (c: Checker, value: unknown, path: string) => void;
}

/**
 * Section II: each schema is a table of fields; a field outside the table is not ATIF (custom data
 * belongs in the schema's `extra`, which every table provides).
 */
function checkObject(c: Checker, value: unknown, path: string, table: Record<string, Field>): value is Json {
  if (!isObject(value)) {
    c.fail(path, 'must be an object');
    return false;
  }
  for (const [name, field] of Object.entries(table)) {
    const v = value[name];
    if (v === undefined || v === null) {
      if (field.required) c.fail(`${path}.${name}`, 'required field is missing');
      continue;
    }
    if (field.since !== undefined && !c.since(`${path}.${name}`, field.since)) continue;
    field.check?.(c, v, `${path}.${name}`);
  }
  for (const name of Object.keys(value))
    if (!(name in table)) c.fail(`${path}.${name}`, 'unexpected field (not part of the ATIF schema)');
  return true;
}

const string: Field['check'] = (c, v, p) => {
  if (typeof v !== 'string') c.fail(p, 'must be a string');
};
const integer: Field['check'] = (c, v, p) => {
  if (!isInt(v)) c.fail(p, 'must be an integer');
};
const nonNegativeInteger: Field['check'] = (c, v, p) => {
  if (!isInt(v) || v < 0) c.fail(p, 'must be an integer of 0 or more');
};
const float: Field['check'] = (c, v, p) => {
  if (!isNumber(v)) c.fail(p, 'must be a number');
};
const boolean: Field['check'] = (c, v, p) => {
  if (typeof v !== 'boolean') c.fail(p, 'must be a boolean');
};
const object: Field['check'] = (c, v, p) => {
  if (!isObject(v)) c.fail(p, 'must be an object');
};
const arrayOf =
  (item: NonNullable<Field['check']>): Field['check'] =>
  (c, v, p) => {
    if (!Array.isArray(v)) return c.fail(p, 'must be an array');
    v.forEach((x, i) => item(c, x, `${p}[${i}]`));
  };

/**
 * Section II, StepObject `timestamp`: "ISO 8601 timestamp" (e.g. "2025-10-16T14:30:00Z"). A calendar
 * date, optionally a time of day (`T` or a space; seconds and a fraction optional) and an offset
 * (`Z`, `±hh:mm`, `±hhmm`, `±hh`), each part in range.
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/;

export function isIso8601(text: string): boolean {
  const m = ISO_8601.exec(text);
  if (!m) return false;
  const [, y, mo, d, h, mi, s, oh, om] = m.map((x) => (x === undefined ? undefined : Number(x)));
  const days = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > days) return false;
  if (h !== undefined && (h > 23 || mi! > 59 || (s ?? 0) > 59)) return false;
  if (oh !== undefined && (oh > 23 || (om ?? 0) > 59)) return false;
  return true;
}

/** Section II, ImageSourceSchema: the four image media types. */
const MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function checkImagePath(c: Checker, p: string, path: string): void {
  // Section II, ImageSourceSchema: "a relative or absolute file path, or a URL".
  if (path === '') return c.fail(p, 'must not be empty');
  if (path.includes('://') || path.startsWith('/')) return;
  const { files, imageDir } = c.options;
  if (imageDir !== undefined && !path.startsWith(imageDir))
    c.fail(p, `relative image path ${JSON.stringify(path)} is not in ${imageDir} (Image Storage Convention)`);
  if (files && !files.has(path)) c.fail(p, `referenced image file does not exist: ${path}`);
}

/** Section II, ContentPartSchema (v1.6+) and ImageSourceSchema (v1.6+). */
function checkContentPart(c: Checker, part: unknown, p: string): void {
  if (!isObject(part)) return c.fail(p, 'must be an object');
  const type = part.type;
  if (type !== 'text' && type !== 'image') return c.fail(`${p}.type`, 'must be "text" or "image"');
  checkObject(c, part, p, {
    type: { required: true },
    text: {
      required: type === 'text',
      check: (c2, v, pp) =>
        type === 'image' ? c2.fail(pp, 'must be omitted when type is "image"') : string!(c2, v, pp),
    },
    source: {
      required: type === 'image',
      check: (c2, v, pp) => {
        if (type === 'text') return c2.fail(pp, 'must be omitted when type is "text"');
        checkObject(c2, v, pp, {
          media_type: {
            required: true,
            check: (c3, m, mp) => {
              if (typeof m !== 'string' || !MEDIA_TYPES.has(m))
                c3.fail(mp, `must be one of ${[...MEDIA_TYPES].join(', ')}`);
            },
          },
          path: {
            required: true,
            check: (c3, m, mp) =>
              typeof m === 'string' ? checkImagePath(c3, mp, m) : c3.fail(mp, 'must be a string'),
          },
        });
      },
    },
  });
}

/** A `message` or `content`: a string, or from v1.6 an array of ContentPart (Section II). */
const content: Field['check'] = (c, v, p) => {
  if (typeof v === 'string') return;
  if (!Array.isArray(v)) return c.fail(p, 'must be a string or an array of content parts');
  if (!c.since(p, 6)) return;
  v.forEach((part, i) => checkContentPart(c, part, `${p}[${i}]`));
};

/** Section II, SubagentTrajectoryRefSchema. */
function checkSubagentRef(c: Checker, ref: unknown, p: string): void {
  if (
    !checkObject(c, ref, p, {
      trajectory_id: { since: 7, check: string },
      trajectory_path: { check: string },
      // Required until v1.6, informational only from v1.7.
      session_id: { required: c.minor <= 6, check: string },
      extra: { check: object },
    })
  )
    return;
  // v1.7: "A ref MUST set at least one of `trajectory_id` or `trajectory_path`".
  if (c.minor >= 7 && ref.trajectory_id == null && ref.trajectory_path == null)
    c.fail(p, 'must set trajectory_id or trajectory_path (session_id alone is not resolvable)');
}

/** Section II, ToolCallSchema. */
const TOOL_CALL: Record<string, Field> = {
  tool_call_id: { required: true, check: string },
  function_name: { required: true, check: string },
  // "Must be a valid JSON object, but can be empty (`{}`)".
  arguments: { required: true, check: object },
  extra: { since: 7, check: object },
};

/** Section II, ObservationResultSchema. */
const OBSERVATION_RESULT: Record<string, Field> = {
  source_call_id: { check: string },
  content: { check: content },
  subagent_trajectory_ref: { check: arrayOf((c, v, p) => checkSubagentRef(c, v, p)) },
  extra: { since: 7, check: object },
};

/** Section II, MetricsSchema: every field optional. */
const METRICS: Record<string, Field> = {
  prompt_tokens: { check: integer },
  completion_tokens: { check: integer },
  cached_tokens: { check: integer },
  cost_usd: { check: float },
  prompt_token_ids: { since: 4, check: arrayOf(integer!) },
  completion_token_ids: { since: 3, check: arrayOf(integer!) },
  logprobs: { check: arrayOf(float!) },
  extra: { check: object },
};

/** Section II, StepObject: "Only applicable when source is "agent"". */
const AGENT_ONLY = ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'] as const;

function checkStep(c: Checker, step: unknown, i: number): void {
  const p = `trajectory.steps[${i}]`;
  if (
    !checkObject(c, step, p, {
      step_id: { required: true, check: integer },
      timestamp: {
        check: (c2, v, pp) => {
          if (typeof v !== 'string' || !isIso8601(v))
            c2.fail(pp, `must be an ISO 8601 timestamp, got ${JSON.stringify(v)}`);
        },
      },
      source: {
        required: true,
        check: (c2, v, pp) => {
          if (v !== 'system' && v !== 'user' && v !== 'agent')
            c2.fail(pp, `must be one of "system", "user", "agent", got ${JSON.stringify(v)}`);
        },
      },
      model_name: { check: string },
      reasoning_effort: {
        check: (c2, v, pp) => {
          if (typeof v !== 'string' && !isNumber(v)) c2.fail(pp, 'must be a string or a number');
        },
      },
      message: { required: true, check: content },
      reasoning_content: { check: string },
      tool_calls: { check: arrayOf((c2, v, pp) => void checkObject(c2, v, pp, TOOL_CALL)) },
      observation: {
        check: (c2, v, pp) =>
          void checkObject(c2, v, pp, {
            results: {
              required: true,
              check: arrayOf((c3, r, rp) => void checkObject(c3, r, rp, OBSERVATION_RESULT)),
            },
          }),
      },
      metrics: { check: (c2, v, pp) => void checkObject(c2, v, pp, METRICS) },
      extra: { check: object },
      llm_call_count: { since: 7, check: nonNegativeInteger },
      is_copied_context: { check: boolean },
    })
  )
    return;

  // Section II, StepObject `step_id`: "Ordinal index of the turn (starting from 1)" — the steps are
  // numbered 1, 2, 3, … in order (Section VI: "sequential step ID validation").
  if (step.step_id !== i + 1)
    c.fail(`${p}.step_id`, `expected ${i + 1} (sequential from 1), got ${JSON.stringify(step.step_id)}`);

  const source = step.source;
  if (source !== 'agent')
    for (const field of AGENT_ONLY)
      if (step[field] != null)
        c.fail(
          `${p}.${field}`,
          `only applicable when source is "agent", but source is ${JSON.stringify(source)}`,
        );

  // Section I, v1.2: observations on system steps; v1.0 had them on agent steps only.
  if (source === 'system' && step.observation != null) c.since(`${p}.observation`, 2);

  // Section II, `llm_call_count`: "When `0` on a `source: "agent"` step … `metrics` and
  // `reasoning_content` MUST be absent".
  if (source === 'agent' && step.llm_call_count === 0)
    for (const field of ['metrics', 'reasoning_content'] as const)
      if (step[field] != null) c.fail(`${p}.${field}`, 'must be absent when llm_call_count is 0');

  // Section II, ObservationResultSchema `source_call_id`: "The `tool_call_id` from the _tool_calls_
  // array in _StepObject_ that this result corresponds to" — a tool call of its own step.
  const own = new Set<unknown>(
    Array.isArray(step.tool_calls)
      ? step.tool_calls.map((t) => (isObject(t) ? t.tool_call_id : undefined))
      : [],
  );
  const results =
    isObject(step.observation) && Array.isArray(step.observation.results) ? step.observation.results : [];
  results.forEach((r, j) => {
    if (!isObject(r) || r.source_call_id == null) return;
    if (!own.has(r.source_call_id))
      c.fail(
        `${p}.observation.results[${j}].source_call_id`,
        `${JSON.stringify(r.source_call_id)} is not a tool_call_id of step ${i + 1}'s tool_calls`,
      );
  });
}

function checkTrajectory(doc: unknown, options: RfcValidationOptions, prefix = ''): string[] {
  const root = prefix === '' ? 'trajectory.' : prefix;
  if (!isObject(doc)) return [`${root.slice(0, -1)}: must be a JSON object`];
  const version = typeof doc.schema_version === 'string' ? /^ATIF-v1\.(\d+)$/.exec(doc.schema_version) : null;
  const minor = version ? Number(version[1]) : NaN;
  if (!version || !ATIF_VERSIONS.includes(`1.${minor}` as (typeof ATIF_VERSIONS)[number]))
    return [
      `${root}schema_version: must be one of ${ATIF_VERSIONS.map((v) => `ATIF-v${v}`).join(', ')}, got ${JSON.stringify(doc.schema_version)}`,
    ];
  const c = new Checker(minor, options);

  // Section II, Root-Level Metadata.
  checkObject(c, doc, 'trajectory', {
    schema_version: { required: true },
    // Required in v1.6 and earlier; optional from v1.7.
    session_id: { required: minor <= 6, check: string },
    trajectory_id: { since: 7, check: string },
    agent: {
      required: true,
      // Section II, AgentSchema.
      check: (c2, v, p) =>
        void checkObject(c2, v, p, {
          name: { required: true, check: string },
          version: { required: true, check: string },
          model_name: { check: string },
          tool_definitions: { since: 5, check: arrayOf(object!) },
          extra: { check: object },
        }),
    },
    steps: {
      required: true,
      check: (c2, v, p) => {
        if (!Array.isArray(v)) return c2.fail(p, 'must be an array');
        // Section I, Trajectory Definition: "a sequence of interactions"; the reference models
        // (Section VI) hold at least one step.
        if (v.length === 0) c2.fail(p, 'must hold at least one step');
        v.forEach((step, i) => checkStep(c2, step, i));
      },
    },
    notes: { check: string },
    // Section II, FinalMetricsSchema: every field optional.
    final_metrics: {
      check: (c2, v, p) =>
        void checkObject(c2, v, p, {
          total_prompt_tokens: { check: integer },
          total_completion_tokens: { check: integer },
          total_cached_tokens: { check: integer },
          total_cost_usd: { check: float },
          total_steps: { check: integer },
          extra: { check: object },
        }),
    },
    continued_trajectory_ref: { check: string },
    extra: { since: 1, check: object },
    subagent_trajectories: {
      since: 7,
      check: (c2, v, p) => (Array.isArray(v) ? undefined : c2.fail(p, 'must be an array')),
    },
  });

  // Section II, Root-Level Metadata `subagent_trajectories`: each element "a complete,
  // independently-valid ATIF Trajectory"; "every embedded subagent MUST set `trajectory_id`, and
  // `trajectory_id`s within this array MUST be unique"; a ref without `trajectory_path` resolves
  // by `trajectory_id` against this array (SubagentTrajectoryRefSchema, "Resolution mechanisms").
  const embedded = Array.isArray(doc.subagent_trajectories) ? doc.subagent_trajectories : [];
  const ids = new Set<unknown>();
  embedded.forEach((sub, i) => {
    const p = `trajectory.subagent_trajectories[${i}]`;
    c.problems.push(...checkTrajectory(sub, options, `${p}.`));
    const id = isObject(sub) ? sub.trajectory_id : undefined;
    if (id == null) c.fail(`${p}.trajectory_id`, 'required on an embedded subagent trajectory');
    else if (ids.has(id))
      c.fail(`${p}.trajectory_id`, `${JSON.stringify(id)} is not unique within subagent_trajectories`);
    ids.add(id);
  });
  if (minor >= 7 && Array.isArray(doc.steps))
    doc.steps.forEach((step, i) => {
      const results =
        isObject(step) && isObject(step.observation) && Array.isArray(step.observation.results)
          ? step.observation.results
          : [];
      results.forEach((r, j) => {
        const refs = isObject(r) && Array.isArray(r.subagent_trajectory_ref) ? r.subagent_trajectory_ref : [];
        refs.forEach((ref, k) => {
          if (
            isObject(ref) &&
            ref.trajectory_path == null &&
            ref.trajectory_id != null &&
            !ids.has(ref.trajectory_id)
          )
            c.fail(
              `trajectory.steps[${i}].observation.results[${j}].subagent_trajectory_ref[${k}].trajectory_id`,
              'names no embedded subagent trajectory',
            );
        });
      });
    });

  // Section II, ToolCallSchema `tool_call_id`: "Unique identifier for this specific tool call".
  const seen = new Map<unknown, number>();
  (Array.isArray(doc.steps) ? doc.steps : []).forEach((step, i) => {
    const calls = isObject(step) && Array.isArray(step.tool_calls) ? step.tool_calls : [];
    calls.forEach((call, j) => {
      const id = isObject(call) ? call.tool_call_id : undefined;
      if (typeof id !== 'string') return;
      const first = seen.get(id);
      if (first !== undefined)
        c.fail(
          `trajectory.steps[${i}].tool_calls[${j}].tool_call_id`,
          `${JSON.stringify(id)} repeats a tool call of step ${first + 1}`,
        );
      else seen.set(id, i);
    });
  });
  return c.problems.map((line) =>
    prefix && line.startsWith('trajectory.') ? `${prefix}${line.slice('trajectory.'.length)}` : line,
  );
}

/** Every way the document breaks the RFC (empty when it keeps them all), as `path: reason` lines. */
export function atifRfcProblems(doc: unknown, options: RfcValidationOptions = {}): string[] {
  return checkTrajectory(doc, options);
}
