// An OSWorld task file (evaluation_examples/examples/<domain>/<id>.json: `id`, `snapshot`,
// `instruction`, `config`, `evaluator`, …) as a sandbay Task: its instruction, its `config` as setup
// steps (config.ts) and its `evaluator` as a grader (evaluator.ts). The category is the request's,
// else OSWorld's `snapshot` (the task's domain: `os`, `chrome`, `libreoffice_calc`, …).
import { isObject, refuse, taskIdOf, type ImportOptions, type ImportedTask } from '../imported-task.ts';
import { configSteps } from './config.ts';
import { evaluatorGrader } from './evaluator.ts';

export function osworldTask(source: unknown, options: ImportOptions = {}): ImportedTask {
  if (!isObject(source)) refuse('an OSWorld task is a JSON object');
  const { id, instruction, snapshot } = source;
  if (typeof id !== 'string' || id === '') refuse('the task has no `id`');
  if (typeof instruction !== 'string' || instruction.trim() === '') refuse('the task has no `instruction`');
  const setup = configSteps(source.config, options);
  const grader = evaluatorGrader(source.evaluator);
  return {
    id: taskIdOf(id),
    instruction,
    ...(typeof snapshot === 'string' && snapshot !== '' && { category: snapshot }),
    setup,
    grader,
  };
}
