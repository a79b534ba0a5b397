// The fields of a task a person writes, in their own module: the task list's new-task form and the
// task page's edit form both use them (and the two pages import each other no more).
/** The fields of a task a person writes: shared by the new-task form and the edit form. */
export function TaskFields(props: {
  prefix: string;
  value: { instruction: string; category: string; setup: string; grader: string };
  onChange: (v: { instruction: string; category: string; setup: string; grader: string }) => void;
}) {
  const v = props.value;
  const id = (name: string) => `${props.prefix}-${name}`;
  return (
    <>
      <label for={id('instruction')}>Instruction</label>
      <textarea
        id={id('instruction')}
        rows={2}
        required
        maxLength={20000}
        value={v.instruction}
        onInput={(e) => props.onChange({ ...v, instruction: e.currentTarget.value })}
      />
      <label for={id('category')}>Category (optional)</label>
      <input
        id={id('category')}
        maxLength={200}
        value={v.category}
        onInput={(e) => props.onChange({ ...v, category: e.currentTarget.value })}
      />
      <label for={id('setup')}>Setup script (optional; runs before recording, unrecorded)</label>
      <textarea
        id={id('setup')}
        rows={3}
        class="mono"
        value={v.setup}
        onInput={(e) => props.onChange({ ...v, setup: e.currentTarget.value })}
      />
      <label for={id('grader')}>Grader (optional; a shell command, exit 0 = reward 1)</label>
      <input
        id={id('grader')}
        class="mono"
        value={v.grader}
        onInput={(e) => props.onChange({ ...v, grader: e.currentTarget.value })}
      />
    </>
  );
}
