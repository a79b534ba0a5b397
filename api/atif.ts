// A Task as an ATIF trajectory (Agent Trajectory Interchange Format v1.6, api/schemas/atif.ts): a
// `user` step holding the instruction, then one `agent` step per recorded action, the action as a
// tool call and the screenshot observed after it as an image content part. The same document is
// served by `GET /v1/me/tasks/{id}/trajectory` and is `trajectory.json` of the download archive, so
// an image `path` is relative to the archive (`images/step-0003.png`); the API path serving the same
// PNG, its size and SHA-256 are in the step's `extra`. No image is inlined (a data URL would make a
// long trajectory tens of megabytes of JSON).
//
// What the standard has no field for (the task's category, setup script, grader, app state) is in
// the root `extra.task`, the format's extension point, so the document is both valid ATIF and
// complete.
import type { Task } from '../crds/index.ts';
import { isoTime } from './atif-read.ts';
import { ATIF_SCHEMA_VERSION, type AtifDocument, type AtifStep } from './schemas/atif.ts';

export { ATIF_SCHEMA_VERSION };

/** Who "acted" in a sandbay trajectory: a person in the collector, or API calls made meanwhile. */
export const ATIF_AGENT = { name: 'sandbay-collector', version: '1' } as const;

type TaskStep = NonNullable<NonNullable<Task['status']>['steps']>[number];

/** Where a step's screenshot sits in the download archive. */
export function imagePath(index: number): string {
  return `images/step-${String(index).padStart(4, '0')}.png`;
}

/** The API path serving a step's screenshot. */
export function screenshotUrl(taskId: string, index: number): string {
  return `/v1/me/tasks/${taskId}/steps/${index}/screenshot`;
}

/** A step's tool call id: unique in the trajectory, stable across exports. */
export function toolCallId(index: number): string {
  return `call-${String(index).padStart(4, '0')}`;
}

/** A task's steps in replay order (by index, whatever order the resource lists them in). */
export function orderedSteps(task: Task): TaskStep[] {
  return [...(task.status?.steps ?? [])].sort((a, b) => a.index - b.index);
}

/** The task as sandbay describes it (the root `extra.task` of the trajectory, and `task.json`). */
export function atifTask(task: Task) {
  return {
    id: task.metadata.name,
    instruction: task.spec.instruction,
    category: task.spec.category ?? null,
    setup_script: task.spec.setupScript ?? null,
    setup: task.spec.setup ?? null,
    grader: task.spec.grader ?? null,
    app_state: task.status?.appState ?? null,
    created_at: task.metadata.creationTimestamp ?? null,
  };
}
export type AtifTask = ReturnType<typeof atifTask>;

/** A one-line description of an action for people (the step's `message`). */
function describe(step: TaskStep): string {
  const args = Object.entries(step.args)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ');
  return `${step.function}(${args})`;
}

function agentStep(taskId: string, step: TaskStep, stepId: number): AtifStep {
  const callId = toolCallId(step.index);
  // A status written through the admin API may hold any string: only a time is exported as one.
  const timestamp = isoTime(step.at);
  return {
    step_id: stepId,
    ...(timestamp && { timestamp }),
    source: 'agent',
    message: describe(step),
    tool_calls: [{ tool_call_id: callId, function_name: step.function, arguments: step.args }],
    ...(step.screenshot && {
      observation: {
        results: [
          {
            source_call_id: callId,
            content: [{ type: 'image', source: { media_type: 'image/png', path: imagePath(step.index) } }],
          },
        ],
      },
    }),
    extra: {
      index: step.index,
      screenshot: step.screenshot
        ? {
            url: screenshotUrl(taskId, step.index),
            bytes: step.screenshot.bytes,
            sha256: step.screenshot.sha256,
          }
        : null,
    },
  };
}

export function toAtif(task: Task): AtifDocument {
  const id = task.metadata.name;
  const steps = orderedSteps(task);
  // A time as RFC 3339 (ISO 8601), whatever wrote the resource.
  const created = isoTime(task.metadata.creationTimestamp);
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: id,
    agent: { ...ATIF_AGENT, extra: { kind: 'human_demonstration' } },
    notes:
      'A demonstration recorded by sandbay: what a person did in the live view and the API calls made on the sandbox.',
    steps: [
      { step_id: 1, ...(created && { timestamp: created }), source: 'user', message: task.spec.instruction },
      ...steps.map((step, i) => agentStep(id, step, i + 2)),
    ],
    final_metrics: { total_steps: steps.length + 1 },
    extra: { task: atifTask(task) },
  };
}
