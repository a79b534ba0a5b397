// What the benchmark importers (osworld/, macosworld/) make of a task file: a sandbay Task's
// instruction, category, setup steps and grader, all of the kinds in crds/ (docs/evaluation.md,
// "Importing benchmark tasks"). A task that uses what sandbay cannot do exactly is refused whole,
// with a message naming the step or check and why; nothing is half-imported.
import type { Grader, SetupStep } from '../../crds/index.ts';
import { ApiError } from '../errors.ts';

export const IMPORT_FORMATS = ['osworld', 'macosworld'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportedTask {
  /** The task id it gets unless the request names one: the source's id, made a resource name. */
  id: string;
  instruction: string;
  category?: string;
  setup: SetupStep[];
  grader: Grader;
}

/** Options a source's placeholders and grading choices need (`POST /v1/me/tasks/import`). */
export interface ImportOptions {
  /** macOSWorld: the task language (`en`, `zh`, `ar`, `ja`, `ru`); default `en`. */
  language?: string;
  /** macOSWorld: the environment language its `pre_command` is chosen by; default `language`. */
  env_language?: string;
  /** macOSWorld: grade with every `grading_command` (score / 100), not only the full-score ones. */
  partial_credit?: boolean;
  /** OSWorld: `{SCREEN_WIDTH}` / `{SCREEN_HEIGHT}` (and the halves) in commands; default 1920×1080. */
  screen_width?: number;
  screen_height?: number;
  /** OSWorld: `{CLIENT_PASSWORD}` in commands (the VM user's sudo password). */
  client_password?: string;
}

/** 422 `task_unsupported`: the message says which part of the source task and why. */
export function refuse(message: string): never {
  throw new ApiError('task_unsupported', message);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A source id as a task id (`[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters), if it can be one. */
export function taskIdOf(sourceId: string): string {
  const id = sourceId.toLowerCase();
  if (id.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(id))
    refuse(`id ${JSON.stringify(sourceId)} cannot be a task id: pass \`id\``);
  return id;
}

/** A path in the VM as the setup and grader kinds take it: `~/x` is `x` (relative to the home). */
export function homePath(path: string): string {
  if (path === '~') return '.';
  return path.startsWith('~/') ? path.slice(2) || '.' : path;
}
