// One task: its steps with screenshots, edit, download, the recording, replays, and the collector.
import { useEffect, useState } from 'preact/hooks';
import type { Grader, Replay, SandboxInfo, Task } from '../../../../sdk/typescript/src/index.ts';
import { client, messageOf, when } from '../api.ts';
import { Link } from '../router.tsx';
import { ErrorNote, Show, useLoad, useSubmit } from '../ui.tsx';
import { LiveView } from './live-view.tsx';
import { TaskFields } from './task-fields.tsx';

const TERMINAL = new Set(['completed', 'failed']);
const SETTLING = new Set(['recording', 'finalizing']);

export function TaskDetail(props: { id: string }) {
  const [data, reload] = useLoad(() => Promise.all([client.tasks.get(props.id), client.list()]), [props.id]);
  const [collecting, setCollecting] = useState<string | undefined>();
  // A task whose recording still finalizes in the background: look again until it settles.
  useEffect(() => {
    if (data.state !== 'ok' || !SETTLING.has(data.data[0].phase ?? '') || collecting) return;
    const t = setTimeout(reload, 1000);
    return () => clearTimeout(t);
  }, [data, collecting, reload]);
  return (
    <>
      <p>
        <Link href="/tasks">All tasks</Link>
      </p>
      <Show value={data} what="the task" retry={reload}>
        {([task, sandboxes]) => (
          <>
            <h1>
              Task <code class="small">{task.id}</code>{' '}
              {(collecting || task.phase) && (
                <span class={`badge ${collecting ? 'recording' : task.phase}`} data-testid="task-phase">
                  {collecting ? 'recording' : task.phase}
                </span>
              )}
            </h1>
            {collecting ? (
              <Collecting
                task={task}
                sandboxId={collecting}
                onStopped={() => {
                  setCollecting(undefined);
                  reload();
                }}
              />
            ) : (
              <>
                <Facts task={task} />
                {task.step_count === 0 && (
                  <Record
                    sandboxes={sandboxes.filter((s) => s.state === 'running')}
                    task={task}
                    onStarted={setCollecting}
                  />
                )}
                <Steps task={task} />
                <Replays task={task} />
                <Edit task={task} onSaved={reload} />
              </>
            )}
          </>
        )}
      </Show>
    </>
  );
}

function Facts(props: { task: Task }) {
  const t = props.task;
  return (
    <>
      <dl class="facts">
        <dt>Instruction</dt>
        <dd data-testid="task-instruction">{t.instruction}</dd>
        <dt>Category</dt>
        <dd>{t.category ?? '—'}</dd>
        <dt>Setup script</dt>
        <dd>{t.setup_script ? <pre class="mono">{t.setup_script}</pre> : '—'}</dd>
        <dt>Grader</dt>
        <dd>{t.grader ? <code>{t.grader}</code> : '— (replays report no reward)'}</dd>
        <dt>Created</dt>
        <dd>{when(t.created_at)}</dd>
      </dl>
      <p class="actions">
        <a
          href={`/v1/me/tasks/${encodeURIComponent(t.id)}/download`}
          download={`${t.id}.zip`}
          data-testid="download"
        >
          Download ZIP (ATIF trajectory, screenshots, setup script)
        </a>
        {' · '}
        <a href={`/v1/me/tasks/${encodeURIComponent(t.id)}/trajectory`} target="_blank" rel="noopener">
          ATIF JSON
        </a>
      </p>
      {t.has_recording && t.recording_url && (
        <details>
          <summary>Screen recording</summary>
          <video src={t.recording_url} controls preload="none" class="recording" />
        </details>
      )}
    </>
  );
}

function Record(props: { task: Task; sandboxes: SandboxInfo[]; onStarted: (sandboxId: string) => void }) {
  const [sandbox, setSandbox] = useState(props.sandboxes[0]?.sandbox_id ?? '');
  const [runSetup, setRunSetup] = useState(true);
  const [{ busy, error }, submit] = useSubmit();
  if (props.sandboxes.length === 0)
    return (
      <p class="empty">
        To record this task, <Link href="/sandboxes">create a sandbox</Link> first.
      </p>
    );
  return (
    <form
      class="stack"
      aria-labelledby="record-title"
      onSubmit={(e) => {
        e.preventDefault();
        void submit(async () => {
          await client.tasks.startCollection(sandbox, props.task.id, { runSetup });
          props.onStarted(sandbox);
        });
      }}
    >
      <h2 id="record-title">Record a demonstration</h2>
      <label for="collect-sandbox">Sandbox</label>
      <select id="collect-sandbox" value={sandbox} onChange={(e) => setSandbox(e.currentTarget.value)}>
        {props.sandboxes.map((s) => (
          <option key={s.sandbox_id} value={s.sandbox_id}>
            {s.sandbox_id}
          </option>
        ))}
      </select>
      <label class="radio">
        <input type="checkbox" checked={runSetup} onChange={(e) => setRunSetup(e.currentTarget.checked)} />
        Run the setup script first (unrecorded)
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Running the setup…' : 'Start recording'}
      </button>
      {error && (
        <p class="error" role="alert" data-testid="api-error">
          {error}
        </p>
      )}
    </form>
  );
}

function Collecting(props: { task: Task; sandboxId: string; onStopped: () => void }) {
  const [steps, setSteps] = useState(0);
  const [{ busy, error }, submit] = useSubmit();
  useEffect(() => {
    let live = true;
    const look = () =>
      client.tasks.getCollection(props.sandboxId).then(
        (c) => live && setSteps(c.step_count),
        () => undefined,
      );
    const t = setInterval(look, 1000);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [props.sandboxId]);
  return (
    <>
      <p class="recording-bar" role="status">
        <span class="live-dot rec" aria-hidden="true" /> Recording:{' '}
        <strong data-testid="collected-steps">{steps}</strong> steps so far. Do the task in the desktop below:{' '}
        <em>{props.task.instruction}</em>
      </p>
      <button
        type="button"
        class="danger"
        disabled={busy}
        onClick={() =>
          void submit(async () => {
            await client.tasks.stopCollection(props.sandboxId);
            props.onStopped();
          })
        }
      >
        {busy ? 'Saving…' : 'Stop recording and save'}
      </button>
      {error && <ErrorNote message={error} />}
      <LiveView id={props.sandboxId} />
    </>
  );
}

function Steps(props: { task: Task }) {
  const steps = props.task.steps;
  if (steps.length === 0) return null;
  return (
    <>
      <h2>Steps ({steps.length})</h2>
      <ol class="steps" data-testid="steps">
        {steps.map((s) => (
          <li key={s.index} class="card">
            <p>
              <strong>{s.function}</strong> <code>{JSON.stringify(s.args)}</code>
            </p>
            {s.screenshot_url ? (
              <img
                src={s.screenshot_url}
                alt={`Screen after step ${s.index + 1}: ${s.function}`}
                loading="lazy"
              />
            ) : (
              <p class="hint">No screenshot.</p>
            )}
          </li>
        ))}
      </ol>
    </>
  );
}

function Replays(props: { task: Task }) {
  const [replay, setReplay] = useState<Replay | undefined>();
  const [pollError, setPollError] = useState('');
  const [{ busy, error }, submit] = useSubmit();
  // The spec's replay status is polled until completed or failed.
  useEffect(() => {
    if (!replay || TERMINAL.has(replay.status)) return;
    const t = setTimeout(
      () => client.tasks.getReplay(replay.id).then(setReplay, (err: unknown) => setPollError(messageOf(err))),
      1000,
    );
    return () => clearTimeout(t);
  }, [replay]);
  const ready = props.task.phase === 'ready' || props.task.phase === 'saved';
  return (
    <>
      <h2>Replay</h2>
      <p class="hint">
        Boots a fresh sandbox, runs the setup script, re-executes the steps, then the grader.
      </p>
      <button
        type="button"
        disabled={busy || !ready || (replay !== undefined && !TERMINAL.has(replay.status))}
        onClick={() => void submit(async () => setReplay(await client.tasks.replay(props.task.id)))}
      >
        Replay this task
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {pollError && <ErrorNote message={pollError} />}
      {replay && (
        <dl class="facts" data-testid="replay" aria-live="polite">
          <dt>Status</dt>
          <dd>
            <span class={`badge ${replay.status}`} data-testid="replay-status">
              {replay.status}
            </span>
          </dd>
          <dt>Steps</dt>
          <dd>
            {replay.steps_done ?? 0} of {replay.steps_total ?? '?'}
          </dd>
          <dt>Reward</dt>
          <dd data-testid="replay-reward">{replay.reward === null ? 'no grader' : replay.reward}</dd>
          <dt>Message</dt>
          <dd>{replay.message ?? '—'}</dd>
          {replay.sandbox_id && !TERMINAL.has(replay.status) && (
            <>
              <dt>Watch</dt>
              <dd>
                <Link href={`/sandboxes/${replay.sandbox_id}`}>Live view of the replay</Link>
              </dd>
            </>
          )}
        </dl>
      )}
    </>
  );
}

function Edit(props: { task: Task; onSaved: () => void }) {
  const t = props.task;
  // A grader of checks (docs/evaluation.md) is edited as its JSON; a script as it is.
  const graderText =
    t.grader === null ? '' : typeof t.grader === 'string' ? t.grader : JSON.stringify(t.grader, null, 2);
  const [v, setV] = useState({
    instruction: t.instruction,
    category: t.category ?? '',
    setup: t.setup_script ?? '',
    grader: graderText,
  });
  const [{ busy, error }, submit] = useSubmit();
  const [saved, setSaved] = useState(false);
  return (
    <details>
      <summary>Edit instruction, category, setup script, grader</summary>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          void submit(async () => {
            await client.tasks.update(t.id, {
              instruction: v.instruction,
              category: v.category.trim() === '' ? null : v.category.trim(),
              setup_script: v.setup.trim() === '' ? null : v.setup,
              ...(v.grader !== graderText && { grader: graderOf(v.grader) }),
            });
            setSaved(true);
            props.onSaved();
          });
        }}
      >
        <TaskFields prefix="edit" value={v} onChange={setV} />
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        {saved && (
          <p class="ok" role="status">
            Saved.
          </p>
        )}
        {error && (
          <p class="error" role="alert" data-testid="edit-error">
            {error}
          </p>
        )}
      </form>
    </details>
  );
}

/** The grader field's text as the API takes it: empty removes it, a JSON object is a grader of checks. */
function graderOf(text: string): Grader | null {
  if (text.trim() === '') return null;
  if (text.trim().startsWith('{')) {
    try {
      // The API checks it and answers 400 `invalid_grader`, naming what is wrong.
      return JSON.parse(text) as Grader;
    } catch {
      // Not JSON: a script that starts with `{` (a shell group).
    }
  }
  return text;
}
