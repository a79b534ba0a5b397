// Tasks (recorded demonstrations): the list and a new task; a task's detail with its steps and their
// screenshots, editing, the ZIP download, the screen recording, replays with status and reward, and
// the collector: pick a running sandbox, the setup script runs unrecorded, then what you do in the
// live view is recorded until you stop (docs/trajectories.md).
import { useState } from 'preact/hooks';
import type { TaskSummary } from '../../../../sdk/typescript/src/index.ts';
import { client, when } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { Empty, Show, useLoad, useSubmit } from '../ui.tsx';
import { TaskDetail } from './task-detail.tsx';
import { TaskFields } from './task-fields.tsx';

export function TasksPage(props: { path: string }) {
  const detail = /^\/tasks\/([a-z0-9]([-a-z0-9]*[a-z0-9])?)$/.exec(props.path);
  if (detail) return <TaskDetail id={detail[1]!} />;
  return <TaskList />;
}

function TaskList() {
  const [tasks, reload] = useLoad(() => client.tasks.list());
  return (
    <>
      <h1>Tasks</h1>
      <p class="lead">
        Recorded demonstrations: each step is an action with the screenshot seen after it, exported as ATIF.
      </p>
      <NewTask />
      <h2>Your tasks</h2>
      <Show value={tasks} what="tasks" retry={reload}>
        {(list) =>
          list.length === 0 ? (
            <Empty>No task yet: create one above, then record it.</Empty>
          ) : (
            <Table tasks={list} />
          )
        }
      </Show>
    </>
  );
}

function Table(props: { tasks: TaskSummary[] }) {
  return (
    <div class="table-wrap">
      <table data-testid="tasks">
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Instruction</th>
            <th scope="col">Category</th>
            <th scope="col">Steps</th>
            <th scope="col">Phase</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {[...props.tasks].reverse().map((t) => (
            <tr key={t.id} data-id={t.id}>
              <td>
                <Link href={`/tasks/${t.id}`}>{t.id}</Link>
              </td>
              <td>{t.instruction}</td>
              <td>{t.category ?? '—'}</td>
              <td>{t.step_count}</td>
              <td>
                <span class={`badge ${t.phase ?? ''}`}>{t.phase ?? '—'}</span>
              </td>
              <td>{when(t.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NewTask() {
  const [v, setV] = useState({ instruction: '', category: '', setup: '', grader: '' });
  const [{ busy, error }, submit] = useSubmit();
  return (
    <form
      class="stack"
      aria-labelledby="new-task"
      onSubmit={(e) => {
        e.preventDefault();
        void submit(async () => {
          const t = await client.tasks.create({
            instruction: v.instruction,
            ...(v.category.trim() !== '' && { category: v.category.trim() }),
            ...(v.setup.trim() !== '' && { setup_script: v.setup }),
            ...(v.grader.trim() !== '' && { grader: v.grader }),
          });
          navigate(`/tasks/${t.id}`);
        });
      }}
    >
      <h2 id="new-task">New task</h2>
      <TaskFields prefix="new" value={v} onChange={setV} />
      <button type="submit" disabled={busy}>
        {busy ? 'Creating…' : 'Create task'}
      </button>
      {error && (
        <p class="error" role="alert" data-testid="api-error">
          {error}
        </p>
      )}
    </form>
  );
}
