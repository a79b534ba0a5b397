// Why a task cannot be written as a Harbor task directory: the message names the part (a check of
// the grader, a recorded step, a setup step's blob) and says why. The route answers it as 422
// `task_not_exportable`.
export class TaskNotExportable extends Error {
  override name = 'TaskNotExportable';
}
