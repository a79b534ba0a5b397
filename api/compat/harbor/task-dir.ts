// A recorded task as a Harbor task directory (Harbor's TaskPaths):
//
//   task.toml              the task's configuration ([task] name, [metadata], [verifier], [agent])
//   instruction.md         the instruction
//   environment/setup.json the task's setup as sandbay setup steps: its setup script first (as a
//                          `command` step), then its steps, exactly what a replay runs
//   environment/setup.sh   the setup script as it was written (for people; setup.json carries it)
//   environment/blobs/<id> the uploaded blobs its `download` steps name (content-addressed: uploading
//                          the bytes again gives the same id)
//   tests/test.sh          the grader (test-script.ts)
//   solution/solve.sh      the recorded actions, replayed (solve-script.ts)
//   solution/actions.json  the recorded actions as data
//
// Harbor builds a Docker image from `environment/`; a sandbay task has no image, it runs in a sandbay
// sandbox, so the directory is run with the sandbay environment (docs/agents.md), which creates the
// sandbox and runs environment/setup.json through `POST /v1/sandboxes/{id}/setup`.
import type { Readable } from 'node:stream';
import { stringify } from 'smol-toml';
import type { Task } from '../../../crds/index.ts';
import type { OpenedBlob } from '../../../operator/evaluation/steps.ts';
import {
  taskGrader,
  taskSetupSteps,
  TASK_GRADER_TIMEOUT_S,
} from '../../../operator/evaluation/task-evaluation.ts';
import { orderedSteps } from '../../atif.ts';
import { TaskNotExportable } from './errors.ts';
import { harborActions, harborSolveScript } from './solve-script.ts';
import { harborTestScript } from './test-script.ts';

/** One file of the directory: its relative path, mode, and bytes (or a stream of a known size). */
export interface TaskDirEntry {
  path: string;
  mode: number;
  data?: Buffer;
  /** Opened only when its entry is written, so an archive never holds what it has not reached. */
  open?: () => Promise<Readable>;
  size: number;
}

/** The agent's time limit Harbor is given: a person's demonstration is no measure of an agent's. */
export const AGENT_TIMEOUT_S = 1800;

const text = (path: string, body: string, mode = 0o644): TaskDirEntry => {
  const data = Buffer.from(body, 'utf8');
  return { path, mode, data, size: data.length };
};

/** task.toml: Harbor's TaskConfig; sandbay's own facts in [metadata] (a free-form table). */
export function harborTaskToml(task: Task): string {
  const id = task.metadata.name;
  const category = task.spec.category;
  const firstLine = task.spec.instruction.split('\n')[0]!.trim();
  const config = {
    schema_version: '1.1',
    task: {
      // Harbor's package name is `org/name`: the account, then the task.
      name: `${task.metadata.namespace}/${id}`,
      description: firstLine.length > 200 ? `${firstLine.slice(0, 199)}…` : firstLine,
      keywords: ['sandbay', 'computer-use', ...(category ? [category] : [])],
    },
    metadata: {
      source: 'sandbay',
      sandbay_task: id,
      ...(category !== undefined && { category }),
      ...(task.metadata.creationTimestamp !== undefined && { recorded_at: task.metadata.creationTimestamp }),
      step_count: orderedSteps(task).length,
      graded: task.spec.grader !== undefined,
    },
    verifier: { timeout_sec: TASK_GRADER_TIMEOUT_S },
    agent: { timeout_sec: AGENT_TIMEOUT_S },
  };
  const header = [
    `# A Harbor task exported from sandbay task ${JSON.stringify(id)} (GET /v1/me/tasks/${id}/harbor).`,
    '# It runs in a sandbay sandbox: use the sandbay environment (sandbay docs/agents.md), which runs',
    '# environment/setup.json when it starts; tests/test.sh computes the task’s grader.',
  ].join('\n');
  return `${header}\n${stringify(config)}\n`;
}

/** The blob ids `download` steps name, in order, once each. */
function blobIds(task: Task): string[] {
  const ids = (task.spec.setup ?? []).flatMap((s) =>
    s.type === 'download' && s.blob !== undefined ? [s.blob] : [],
  );
  return [...new Set(ids)];
}

/**
 * The directory's files. `openBlob` opens one of the account's uploaded blobs (undefined when it
 * has none such). Throws TaskNotExportable naming what cannot be written.
 */
export async function harborTaskDir(
  task: Task,
  openBlob: (id: string) => Promise<OpenedBlob | undefined>,
): Promise<TaskDirEntry[]> {
  // Everything that can refuse runs before any blob is opened.
  taskGrader(task);
  const test = harborTestScript(task);
  const solve = await harborSolveScript(task);
  const entries = [
    text('task.toml', harborTaskToml(task)),
    text('instruction.md', `${task.spec.instruction.replace(/\n*$/, '')}\n`),
    text('environment/setup.json', `${JSON.stringify(taskSetupSteps(task), null, 2)}\n`),
  ];
  if (task.spec.setupScript !== undefined)
    entries.push(text('environment/setup.sh', task.spec.setupScript, 0o755));
  for (const id of blobIds(task)) {
    const gone = () =>
      new TaskNotExportable(`a download step names blob ${id}, which the account no longer has`);
    const checked = await openBlob(id);
    if (!checked) throw gone();
    checked.stream.destroy();
    const open = async () => {
      const blob = await openBlob(id);
      if (!blob) throw gone();
      return blob.stream;
    };
    entries.push({ path: `environment/blobs/${id}`, mode: 0o644, open, size: checked.bytes });
  }
  entries.push(
    text('tests/test.sh', test, 0o755),
    text('solution/solve.sh', solve, 0o755),
    text('solution/actions.json', `${JSON.stringify(harborActions(task), null, 2)}\n`),
  );
  return entries;
}
