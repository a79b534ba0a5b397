// A Task as an ATIF trajectory (Agent Trajectory Interchange Format): the task and its ordered steps,
// each step one tool call and the screenshot observed after it. The same document is served by
// `GET /v1/me/tasks/{id}/trajectory` and is `trajectory.json` of the download archive, so a
// screenshot is named twice: by `path`, relative to the archive (`images/step-0003.png`), and by
// `url`, the API path that serves the same PNG. No image is inlined (a data URL would make a long
// trajectory tens of megabytes of JSON); `sha256` lets a reader check either copy.
import Type, { type Static } from 'typebox';
import type { Task } from '../crds/index.ts';

export const ATIF_SCHEMA_VERSION = 'sandbay-atif/1';

export const AtifScreenshotSchema = Type.Object({
  path: Type.String({ description: 'Relative to the download archive, e.g. `images/step-0003.png`.' }),
  url: Type.String({ description: 'API path serving the PNG (account key).' }),
  media_type: Type.Literal('image/png'),
  bytes: Type.Integer(),
  sha256: Type.String(),
});

export const AtifStepSchema = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  timestamp: Type.String({ description: 'When the action was recorded (RFC 3339).' }),
  tool_calls: Type.Array(
    Type.Object({ function: Type.String(), args: Type.Record(Type.String(), Type.Unknown()) }),
  ),
  observation: Type.Object({ screenshot: Type.Union([AtifScreenshotSchema, Type.Null()]) }),
});

export const AtifTaskSchema = Type.Object({
  id: Type.String(),
  instruction: Type.String(),
  category: Type.Union([Type.String(), Type.Null()]),
  setup_script: Type.Union([Type.String(), Type.Null()]),
  grader: Type.Union([Type.String(), Type.Null()]),
  app_state: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  created_at: Type.Union([Type.String(), Type.Null()]),
});

export const AtifSchema = Type.Object({
  schema_version: Type.Literal(ATIF_SCHEMA_VERSION),
  task: AtifTaskSchema,
  steps: Type.Array(AtifStepSchema),
});
export type Atif = Static<typeof AtifSchema>;
export type AtifTask = Static<typeof AtifTaskSchema>;

/** Where a step's screenshot sits in the download archive. */
export function imagePath(index: number): string {
  return `images/step-${String(index).padStart(4, '0')}.png`;
}

/** The API path serving a step's screenshot. */
export function screenshotUrl(taskId: string, index: number): string {
  return `/v1/me/tasks/${taskId}/steps/${index}/screenshot`;
}

/** A task's steps in replay order (by index, whatever order the resource lists them in). */
export function orderedSteps(task: Task): NonNullable<NonNullable<Task['status']>['steps']> {
  return [...(task.status?.steps ?? [])].sort((a, b) => a.index - b.index);
}

export function atifTask(task: Task): AtifTask {
  return {
    id: task.metadata.name,
    instruction: task.spec.instruction,
    category: task.spec.category ?? null,
    setup_script: task.spec.setupScript ?? null,
    grader: task.spec.grader ?? null,
    app_state: task.status?.appState ?? null,
    created_at: task.metadata.creationTimestamp ?? null,
  };
}

export function toAtif(task: Task): Atif {
  const id = task.metadata.name;
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    task: atifTask(task),
    steps: orderedSteps(task).map((step) => ({
      index: step.index,
      timestamp: step.at,
      tool_calls: [{ function: step.function, args: step.args }],
      observation: {
        screenshot: step.screenshot
          ? {
              path: imagePath(step.index),
              url: screenshotUrl(id, step.index),
              media_type: 'image/png' as const,
              bytes: step.screenshot.bytes,
              sha256: step.screenshot.sha256,
            }
          : null,
      },
    })),
  };
}
