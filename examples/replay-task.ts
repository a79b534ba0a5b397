// Replays a recorded task with the SDK: lists the account's tasks, replays one on a fresh sandbox
// and waits for the replay's verdict.
//
// Run: SANDBAY_URL=… SANDBAY_API_KEY=… node examples/replay-task.ts [task-id]
// Recording a task from the live view is not in the API yet: tasks are created as resources
// (docs/trajectories.md); this replays one that exists.
import { Client } from '../sdk/typescript/src/index.ts';

const client = new Client();
const tasks = await client.tasks.list();
const id = process.argv[2] ?? tasks[0]?.id;
if (!id) throw new Error('the account has no task to replay');
const trajectory = await client.tasks.trajectory(id);
console.log(`task ${id}: ${JSON.stringify(trajectory).length} bytes of trajectory`);
const replay = await client.tasks.replay(id);
const done = await client.tasks.waitForReplay(replay.id, { timeoutMs: 600_000, pollMs: 500 });
console.log(`replay ${done.id}: ${done.status}, ${done.steps_done}/${done.steps_total} steps`);
