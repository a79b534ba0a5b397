// Several sandboxes of one request at once (a fork into N): the scheduler places them one after
// another on the same read of the fleet, each placement taken as made (its VM claimed at its size,
// the sandbox counted on its Mac) before the next is chosen. All N fit, or the answer is the refusal
// of the first that does not, with the spec's capacity codes: the caller then writes nothing.
import { schedule } from './schedule.ts';
import { isScheduleFailure, type ScheduleChoice, type ScheduleFailure, type ScheduleInput } from './types.ts';

export function scheduleMany(input: ScheduleInput, count: number): ScheduleChoice[] | ScheduleFailure {
  const choices: ScheduleChoice[] = [];
  let { vms, sandboxes } = input;
  for (let i = 0; i < count; i++) {
    const result = schedule({ ...input, vms, sandboxes });
    if (isScheduleFailure(result)) {
      if (i === 0) return result;
      return {
        error: result.error,
        message: `${count} sandboxes do not fit, ${i} would: ${result.message}`,
      };
    }
    choices.push(result);
    const name = `\u0000planned/${i}`; // no sandbox key can look like it (`namespace/name`)
    vms = vms.map((vm) =>
      vm.metadata.name === result.vm
        ? { ...vm, spec: { ...vm.spec, sandbox: name, cpu: result.cpu, memoryGiB: result.memoryGiB } }
        : vm,
    );
    sandboxes = [
      ...sandboxes,
      { name, mini: result.mini, vm: result.vm, cpu: result.cpu, memoryGiB: result.memoryGiB },
    ];
  }
  return choices;
}
