// Reading a trajectory document back: the standard ATIF sandbay exports (any ATIF-v1.x document
// whose agent steps carry tool calls), and the private `sandbay-atif/1` of earlier exports
// (`task`, `steps[].index`, `tool_calls[].{function, args}`). Both become the recorded actions a
// Task holds, so a trajectory imported from either can be replayed. `atifProblems` adds to the
// JSON Schema what a schema cannot say (sequential step ids, where tool calls and answers belong).
import { Compile } from 'typebox/compile';
import type { SetupStep, TaskGrader } from '../crds/index.ts';
import { EvaluationInputError, checkSetupSteps, checkTaskGrader } from '../operator/evaluation/validate.ts';
import { AtifSchema, type AtifDocument } from './schemas/atif.ts';

export const LEGACY_SCHEMA_VERSION = 'sandbay-atif/1';

/** One recorded action as a Task stores it. */
export interface ReadAction {
  function: string;
  args: Record<string, unknown>;
  at?: string;
}

/** What a trajectory document says about its task and actions. */
export interface ReadTrajectory {
  format: 'atif' | 'sandbay-atif/1';
  instruction?: string;
  category?: string;
  setupScript?: string;
  setup?: SetupStep[];
  grader?: TaskGrader;
  actions: ReadAction[];
}

/** The task's setup steps and grader as an export wrote them (checked as the API checks them). */
function evaluationOf(task: Record<string, unknown> | undefined): Pick<ReadTrajectory, 'setup' | 'grader'> {
  try {
    const setup = task?.setup === undefined || task.setup === null ? undefined : checkSetupSteps(task.setup);
    const grader =
      task?.grader === undefined || task.grader === null ? undefined : checkTaskGrader(task.grader);
    return { ...(setup !== undefined && { setup }), ...(grader !== undefined && { grader }) };
  } catch (err) {
    if (err instanceof EvaluationInputError) throw new TrajectoryFormatError(`the task's ${err.message}`);
    throw err;
  }
}

export class TrajectoryFormatError extends Error {
  override name = 'TrajectoryFormatError';
}

/**
 * The schema without its bans on unknown fields: later ATIF minors add optional fields only, so a
 * reader of v1.6 reads a v1.7 document by ignoring what it does not know. (Exports are held to the
 * strict schema, in the tests.)
 */
function relaxed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(relaxed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema))
    if (!(k === 'additionalProperties' && v === false)) out[k] = relaxed(v);
  return out;
}

const checkAtif = Compile(relaxed(JSON.parse(JSON.stringify(AtifSchema))) as typeof AtifSchema);

/** The rules of ATIF beyond its JSON Schema; empty when the document keeps them all. */
export function atifProblems(doc: AtifDocument): string[] {
  const problems: string[] = [];
  const callIds = new Set<string>();
  doc.steps.forEach((step, i) => {
    if (step.step_id !== i + 1) problems.push(`steps[${i}].step_id is ${step.step_id}, expected ${i + 1}`);
    const own = new Set<string>();
    if (step.source !== 'agent') {
      for (const field of ['tool_calls', 'reasoning_content', 'model_name', 'metrics'] as const)
        if (step[field] !== undefined) problems.push(`steps[${i}].${field} is only for agent steps`);
    }
    for (const call of step.tool_calls ?? []) {
      if (callIds.has(call.tool_call_id)) problems.push(`tool_call_id ${call.tool_call_id} is repeated`);
      callIds.add(call.tool_call_id);
      own.add(call.tool_call_id);
    }
    for (const result of step.observation?.results ?? []) {
      const source = result.source_call_id;
      if (source !== undefined && source !== null && !own.has(source))
        problems.push(`steps[${i}] answers ${source}, which is not one of its tool calls`);
    }
  });
  return problems;
}

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const optionalString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A time as RFC 3339 (what a Task's `at` and ATIF's `timestamp` hold), or undefined when it is none. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function fromAtif(doc: AtifDocument): ReadTrajectory {
  const task = record(doc.extra?.task);
  const firstUser = doc.steps.find((s) => s.source === 'user');
  const userText = typeof firstUser?.message === 'string' ? firstUser.message : undefined;
  const actions: ReadAction[] = [];
  for (const step of doc.steps) {
    if (step.source !== 'agent') continue;
    const at = isoTime(step.timestamp);
    for (const call of step.tool_calls ?? [])
      actions.push({ function: call.function_name, args: call.arguments, ...(at && { at }) });
  }
  const instruction = optionalString(task?.instruction) ?? userText;
  const category = optionalString(task?.category);
  const setupScript = optionalString(task?.setup_script);
  return {
    format: 'atif',
    ...(instruction !== undefined && { instruction }),
    ...(category !== undefined && { category }),
    ...(setupScript !== undefined && { setupScript }),
    ...evaluationOf(task),
    actions,
  };
}

function fromLegacy(doc: Record<string, unknown>): ReadTrajectory {
  const task = record(doc.task);
  if (!task || typeof task.instruction !== 'string')
    throw new TrajectoryFormatError('task.instruction must be a string');
  if (!Array.isArray(doc.steps)) throw new TrajectoryFormatError('steps must be an array');
  const steps = doc.steps.map((s, i) => {
    const step = record(s);
    if (!step || !Number.isInteger(step.index) || !Array.isArray(step.tool_calls))
      throw new TrajectoryFormatError(`steps[${i}] must have an integer index and tool_calls`);
    return step as { index: number; timestamp?: unknown; tool_calls: unknown[] };
  });
  const actions: ReadAction[] = [];
  for (const step of steps.sort((a, b) => a.index - b.index)) {
    for (const c of step.tool_calls) {
      const call = record(c);
      const args = record(call?.args);
      if (typeof call?.function !== 'string' || !args)
        throw new TrajectoryFormatError(`step ${step.index}: a tool call needs function and args`);
      const at = isoTime(step.timestamp);
      actions.push({ function: call.function, args, ...(at && { at }) });
    }
  }
  const category = optionalString(task.category);
  const setupScript = optionalString(task.setup_script);
  return {
    format: LEGACY_SCHEMA_VERSION,
    instruction: task.instruction,
    ...(category !== undefined && { category }),
    ...(setupScript !== undefined && { setupScript }),
    ...evaluationOf(task),
    actions,
  };
}

/** Reads either format; a document that is neither, or breaks ATIF's rules, is a TrajectoryFormatError. */
export function readTrajectory(doc: unknown): ReadTrajectory {
  const root = record(doc);
  if (!root) throw new TrajectoryFormatError('a trajectory must be a JSON object');
  if (root.schema_version === LEGACY_SCHEMA_VERSION) return fromLegacy(root);
  if (typeof root.schema_version !== 'string' || !root.schema_version.startsWith('ATIF-v1.'))
    throw new TrajectoryFormatError(
      `schema_version must be ATIF-v1.<minor> or ${LEGACY_SCHEMA_VERSION}, not ${JSON.stringify(root.schema_version)}`,
    );
  if (!checkAtif.Check(root)) {
    const first = [...checkAtif.Errors(root)].slice(0, 3);
    const detail = first.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new TrajectoryFormatError(`not a valid ATIF document: ${detail}`);
  }
  const problems = atifProblems(root);
  if (problems.length > 0) throw new TrajectoryFormatError(`not a valid ATIF document: ${problems[0]}`);
  return fromAtif(root);
}
