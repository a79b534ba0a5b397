// Generated from the customer API's /openapi.json by scripts/generate-sdk-types.ts (`npm run sdk:types`).
// Do not edit: sdk/typescript/test/types-fresh.test.ts fails when this differs from the served document.
export interface paths {
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness and pool statistics */
    get: operations['getHealth'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/blobs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's uploaded blobs, oldest first */
    get: operations['listBlobs'];
    put?: never;
    /** Upload bytes for setup steps (`download` with `blob`); the same bytes are the same blob */
    post: operations['uploadBlob'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/blobs/{blobID}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One uploaded blob */
    get: operations['getBlob'];
    put?: never;
    post?: never;
    /** Delete an uploaded blob */
    delete: operations['deleteBlob'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account this key acts for, with its credit left */
    get: operations['getAccount'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/evaluation-runs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's evaluation runs, oldest first */
    get: operations['listEvaluationRuns'];
    put?: never;
    /** Start an evaluation run: N tasks × an agent endpoint (or replay) × K attempts */
    post: operations['createEvaluationRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/evaluation-runs/{runID}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One evaluation run: its state and counts */
    get: operations['getEvaluationRun'];
    put?: never;
    post?: never;
    /** Delete the run with its attempts, their sandboxes and trajectories */
    delete: operations['deleteEvaluationRun'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/evaluation-runs/{runID}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Stop the run: no attempt starts any more, the running ones stop; the results stay */
    post: operations['cancelEvaluationRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/evaluation-runs/{runID}/results': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The results table: each attempt’s outcome, reward and why, pass rates per task and category */
    get: operations['getEvaluationRunResults'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/evaluation-runs/{runID}/results.csv': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The results table as CSV (RFC 4180), one line per attempt */
    get: operations['getEvaluationRunResultsCsv'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's live keys, each with its plaintext (kept sealed with a server-held key) */
    get: operations['listMyKeys'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/keys/rotate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Issue a new account key and revoke the one this request used */
    post: operations['rotateMyKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/tasks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's recorded tasks (trajectories) */
    get: operations['listTasks'];
    put?: never;
    /** Create a task to collect (or import an ATIF trajectory as one) */
    post: operations['createTask'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/tasks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One task: steps, app state, setup script, grader */
    get: operations['getTask'];
    put?: never;
    post?: never;
    /** Delete a task with its screenshots and recording */
    delete: operations['deleteTask'];
    options?: never;
    head?: never;
    /** Edit a task's instruction, category, setup script, setup steps or grader */
    patch: operations['updateTask'];
    trace?: never;
  };
  '/v1/me/tasks/{id}/download': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** ZIP: trajectory.json, task.json, setup.sh (grader.sh), images/step-NNNN.png */
    get: operations['downloadTask'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/tasks/{id}/harbor': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The task as a Harbor task directory (.tar.gz): task.toml, instruction.md, environment/, tests/test.sh, solution/ */
    get: operations['exportTaskHarbor'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/tasks/{id}/recording': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The task's screen recording (MP4); 404 while none is finalized */
    get: operations['downloadTaskRecording'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/tasks/{id}/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Replay the task on a fresh sandbox (setup script, recorded actions, grader) */
    post: operations['replayTask'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/tasks/{id}/steps/{index}/screenshot': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One step's screenshot (`extra.screenshot.url` of its ATIF step) */
    get: operations['getTaskStepScreenshot'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/tasks/{id}/trajectory': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The task as an ATIF-v1.6 trajectory (Agent Trajectory Interchange Format) */
    get: operations['getTaskTrajectory'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/tasks/import': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Import an OSWorld or macOSWorld task file as a task (setup steps and grader) */
    post: operations['importTask'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me/tasks/replays/{replayID}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A replay: poll until `completed` or `failed` */
    get: operations['getReplay'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/platforms': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Models for sale with their availability; the reservation's images and free capacity */
    get: operations['listPlatforms'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/platforms/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Rates and availability per model and layout, live (server-sent events) */
    get: operations['watchPlatforms'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/reservations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's reservations, past ones included (a reservation key sees its own) */
    get: operations['listReservations'];
    put?: never;
    /** Reserve Macs for at least 24 hours, paid up front; returns the reservation key once */
    post: operations['createReservation'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/reservations/{reservationID}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One reservation */
    get: operations['getReservation'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Add hours (paid at the rate kept from the purchase) or change the layout (no sandboxes running) */
    patch: operations['updateReservation'];
    trace?: never;
  };
  '/v1/reservations/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The reservation key's own reservation */
    get: operations['getMyReservation'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the caller's sandboxes */
    get: operations['listSandboxes'];
    put?: never;
    /** Create a sandbox (claims a warm VM, or boots one cold for another size or a snapshot) */
    post: operations['createSandbox'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Sandbox info */
    get: operations['getSandbox'];
    put?: never;
    post?: never;
    /** Destroy a sandbox (its VM is discarded and a fresh one cloned) */
    delete: operations['deleteSandbox'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/act': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Perform an action (native, Anthropic or OpenAI computer-use vocabulary), then return a screenshot */
    post: operations['act'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/clipboard': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** What the sandbox's clipboard holds: text, a PNG image (base64), or empty */
    get: operations['getClipboard'];
    /** Replace the sandbox's clipboard with text or a PNG image */
    put: operations['setClipboard'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/collection': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The sandbox's collection: phase and steps recorded so far */
    get: operations['getCollection'];
    put?: never;
    /** Collect a task on the sandbox: run its setup script (unrecorded), then record the person's input and API calls */
    post: operations['startCollection'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/collection/stop': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Stop collecting: the trajectory is saved at once, the screen recording finalizes in the background */
    post: operations['stopCollection'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/cua/cmd': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** One command of Cua's computer-server protocol (its POST /cmd) */
    post: operations['cuaCommand'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/cua/commands': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The Cua commands served, with their parameters and aliases (its GET /commands) */
    get: operations['cuaCommands'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/cua/ws': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Cua's computer-server WebSocket (101 upgrade): `{command, params}` messages; Bearer account or reservation key */
    get: operations['connectCua'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/display/info': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Screen size and scale */
    get: operations['getDisplayInfo'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/display/windows': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Application windows with their accessibility tree (a list; `{available, tree, error}` with best_effort) */
    get: operations['listWindows'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/done': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** An evaluation attempt's agent says it finished (or gave up): the attempt is graded */
    post: operations['finishEvaluationAttempt'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/exec': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Run a shell command; a non-zero exit is a result, not an error */
    post: operations['execCommand'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/exec_ax': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Run a shell command under the in-VM control agent (the use.computer client's exec_ax) */
    post: operations['execAxCommand'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/exec/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A command's stdin, stdout and stderr over WebSocket (101 upgrade), Kubernetes' exec channel protocol (v5.channel.k8s.io); optional pty with resize; the exit code in the last frame. Bearer account or reservation key */
    get: operations['execStream'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/files': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Download a file */
    get: operations['downloadFile'];
    /** Upload a file (raw bytes; parent directories are created) */
    put: operations['uploadFile'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/files/archive': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Download a directory as a tar archive */
    get: operations['downloadArchive'];
    /** Upload a directory: the body is a tar archive, unpacked into `path` */
    put: operations['uploadArchive'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/fork': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Fork a running sandbox into N new ones, each started from a copy of its disk */
    post: operations['forkSandbox'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/grade': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Grade the sandbox with a grader (or a task’s): a reward in [0, 1] with each check */
    post: operations['gradeSandbox'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/keepalive': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Heartbeat: keeps an ephemeral sandbox from the idle reaper */
    post: operations['keepaliveSandbox'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/keyboard/hotkey': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Press a key combination such as `cmd+shift+4` */
    post: operations['pressHotkey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/keyboard/press': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Press one key with modifiers held */
    post: operations['pressKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/keyboard/type': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Type text */
    post: operations['typeText'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/mouse/click': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Click (or double-click) at a point */
    post: operations['click'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/mouse/drag': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Drag from one point to another with a button held */
    post: operations['drag'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/mouse/move': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Move the cursor */
    post: operations['moveMouse'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/mouse/position': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The cursor position */
    get: operations['getMousePosition'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/mouse/scroll': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Scroll at a point */
    post: operations['scroll'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/network': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The sandbox's egress policy in force, and the modes its Mac enforces */
    get: operations['getSandboxNetwork'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Change the running sandbox's egress policy; answers once it is in force */
    patch: operations['setSandboxEgress'];
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/pause': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Pause a running sandbox: its VM frozen, memory kept, no CPU used */
    post: operations['pauseSandbox'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/ports/{port}/{*}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** HTTP (and WebSocket) to 127.0.0.1:<port> inside the sandbox: any method, path and body; authorized like the viewer link */
    get: operations['forwardPort'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/recording/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start recording the screen */
    post: operations['startRecording'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/recording/stop': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Stop a recording */
    post: operations['stopRecording'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/recordings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The sandbox's recordings */
    get: operations['listRecordings'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/recordings/{recordingID}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One recording */
    get: operations['getRecording'];
    put?: never;
    post?: never;
    /** Delete a recording */
    delete: operations['deleteRecording'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/recordings/{recordingID}/download': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The MP4 of a stopped recording */
    get: operations['downloadRecording'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/resume': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Resume a paused sandbox where it was */
    post: operations['resumeSandbox'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/screenshot': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Full-screen PNG */
    get: operations['takeScreenshot'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/screenshot/compressed': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Compressed screenshot (JPEG by default), optionally scaled down */
    get: operations['takeCompressedScreenshot'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/screenshot/region': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** PNG of a region of the screen */
    get: operations['takeRegionScreenshot'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/setup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Run setup steps (download, launch, open, command, sleep) in the sandbox, or a task’s setup */
    post: operations['setupSandbox'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/snapshots': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The snapshots taken from this sandbox */
    get: operations['listSandboxSnapshots'];
    put?: never;
    /** Capture the sandbox's disk state as a snapshot (a portable disk delta) */
    post: operations['createSnapshot'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/ssh': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** SSH over WebSocket (101 upgrade): the VM's sshd, byte for byte; Bearer account or reservation key */
    get: operations['connectSsh'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/ssh/credentials': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The VM's SSH login (user and private key) for a client speaking SSH through the WebSocket */
    get: operations['getSshCredentials'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/viewer-token': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Mint a viewer link: valid for an hour, or until the reservation ends if earlier */
    post: operations['createViewerToken'];
    /** Revoke every viewer link of the sandbox issued so far; live views opened with one close within a second */
    delete: operations['revokeViewerTokens'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sandboxes/{sandboxID}/vnc': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** VNC over WebSocket (101 upgrade); authorized by the viewer token in `?token=`, security type None */
    get: operations['connectVnc'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The dashboard session: its account and CSRF token (401 when signed out) */
    get: operations['getSession'];
    put?: never;
    /** Sign the dashboard in with the account key: sets an HttpOnly session cookie */
    post: operations['signIn'];
    /** Sign the dashboard out: clears the session cookie */
    delete: operations['signOut'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/snapshots': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The account's snapshots (optionally of one sandbox) */
    get: operations['listSnapshots'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/snapshots/{version}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One snapshot */
    get: operations['getSnapshot'];
    put?: never;
    post?: never;
    /** Delete a snapshot and its artifact */
    delete: operations['deleteSnapshot'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: never;
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getHealth: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Counts of Macs. */
            minis: {
              /** @description Macs per phase. */
              by_phase: {
                [key: string]: number;
              };
              /** @description All Macs. */
              total: number;
            };
            /** @description Counts of sandboxes. */
            sandboxes: {
              /** @description Sandboxes per phase. */
              by_phase: {
                [key: string]: number;
              };
              /** @description All sandboxes. */
              total: number;
            };
            /**
             * @description Always ok: the server answers.
             * @enum {string}
             */
            status: 'ok';
            /** @description Seconds since this server started. */
            uptime_s: number;
            /** @description The server version. */
            version: string;
            /** @description Counts of VMs. */
            vms: {
              /** @description VMs per phase. */
              by_phase: {
                [key: string]: number;
              };
              /** @description All VMs. */
              total: number;
            };
          };
        };
      };
    };
  };
  listBlobs: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The id (`sha256-` and the SHA-256 of the bytes) a `download` step names. */
            blob_id: string;
            /** @description Its size. */
            bytes: number;
            /** @description When it was first uploaded. */
            created_at: string | null;
            /** @description The name it was uploaded with, for people; null when none. */
            filename: string | null;
            /** @description The SHA-256 of its bytes. */
            sha256: string;
          }[];
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  uploadBlob: {
    parameters: {
      query?: {
        /** @description A name for people, kept with the blob. */
        filename?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The id (`sha256-` and the SHA-256 of the bytes) a `download` step names. */
            blob_id: string;
            /** @description Its size. */
            bytes: number;
            /** @description When it was first uploaded. */
            created_at: string | null;
            /** @description The name it was uploaded with, for people; null when none. */
            filename: string | null;
            /** @description The SHA-256 of its bytes. */
            sha256: string;
          };
        };
      };
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The id (`sha256-` and the SHA-256 of the bytes) a `download` step names. */
            blob_id: string;
            /** @description Its size. */
            bytes: number;
            /** @description When it was first uploaded. */
            created_at: string | null;
            /** @description The name it was uploaded with, for people; null when none. */
            filename: string | null;
            /** @description The SHA-256 of its bytes. */
            sha256: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      507: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getBlob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The blob id (^sha256-[0-9a-f]{64}$). */
        blobID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The id (`sha256-` and the SHA-256 of the bytes) a `download` step names. */
            blob_id: string;
            /** @description Its size. */
            bytes: number;
            /** @description When it was first uploaded. */
            created_at: string | null;
            /** @description The name it was uploaded with, for people; null when none. */
            filename: string | null;
            /** @description The SHA-256 of its bytes. */
            sha256: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  deleteBlob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The blob id (^sha256-[0-9a-f]{64}$). */
        blobID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getAccount: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The account a key acts for. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The account name (the namespace of its resources). */
            account: string;
            /** @description Credit left. */
            balance_cents: number;
            /** @description The name shown for the account. */
            display_name: string;
            /**
             * Format: uuid
             * @description The account's user id (reservations report it).
             */
            user_id: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  listEvaluationRuns: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The agent endpoint; null in replay mode. */
            agent_url: string | null;
            /** @description Attempts of each task (K). */
            attempts: number;
            /** @description A cancel was asked for. */
            cancelled: boolean;
            /**
             * Format: date-time
             * @description When it completed or was cancelled.
             */
            completed_at: string | null;
            /** @description The bound asked for; null: the capacity’s. */
            concurrency: number | null;
            /** @description The attempts by outcome. */
            counts: {
              /** @description Stopped by a cancel, or never started because the run was cancelled. */
              cancelled: number;
              /** @description Could not be graded (setup failed, the agent could not be reached, …). */
              errored: number;
              /** @description Graded below it. */
              failed: number;
              /** @description Graded with a reward at or above the pass threshold. */
              passed: number;
              /** @description Not started yet (no capacity yet, or waiting their turn). */
              queued: number;
              /** @description Started, not finished. */
              running: number;
              /** @description N × K. */
              total: number;
            };
            /**
             * Format: date-time
             * @description When it was created.
             */
            created_at: string | null;
            /** @description The run id (`ev-` and 16 hex digits). */
            id: string;
            /** @description What the run is waiting for, or how it ended, for people. */
            message: string | null;
            /**
             * @description `agent` or `replay`.
             * @enum {unknown}
             */
            mode: 'agent' | 'replay';
            /** @description A reward at or above this passes. */
            pass_threshold: number;
            /** @description The reservation whose Macs run the attempts. */
            reservation_id: string;
            /**
             * Format: date-time
             * @description When its first attempt was created.
             */
            started_at: string | null;
            /**
             * @description `pending`, `running`, `completed` (every attempt ended) or `cancelled`.
             * @enum {unknown}
             */
            status: 'pending' | 'running' | 'completed' | 'cancelled';
            /** @description The tasks run, by id, in order. */
            tasks: string[];
          }[];
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  createEvaluationRun: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The agent endpoint (mode `agent`). */
          agent?: {
            /** @description How long the agent may act on one attempt (default 1800). */
            timeout_s?: number;
            /** @description The HTTP(S) endpoint sandbay POSTs each attempt to. */
            url: string;
          };
          /** @description Attempts of each task (K), each on a fresh sandbox. Default 1. */
          attempts?: number;
          /** @description At most this many attempts at once; the reservation's capacity bounds it anyway. */
          concurrency?: number;
          /**
           * @description `agent`: the agent endpoint acts; `replay`: each task’s recorded actions are replayed.
           * @enum {unknown}
           */
          mode: 'agent' | 'replay';
          /** @description A reward at or above this passes (default 1). */
          pass_threshold?: number;
          /** @description Keep a screen recording of each attempt (default true). */
          record?: boolean;
          /** @description The reservation whose Macs run the attempts (default: the only one). */
          reservation_id?: string;
          /** @description The account's tasks to run (ids); each needs a grader. */
          tasks: string[];
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The agent endpoint; null in replay mode. */
            agent_url: string | null;
            /** @description Attempts of each task (K). */
            attempts: number;
            /** @description A cancel was asked for. */
            cancelled: boolean;
            /**
             * Format: date-time
             * @description When it completed or was cancelled.
             */
            completed_at: string | null;
            /** @description The bound asked for; null: the capacity’s. */
            concurrency: number | null;
            /** @description The attempts by outcome. */
            counts: {
              /** @description Stopped by a cancel, or never started because the run was cancelled. */
              cancelled: number;
              /** @description Could not be graded (setup failed, the agent could not be reached, …). */
              errored: number;
              /** @description Graded below it. */
              failed: number;
              /** @description Graded with a reward at or above the pass threshold. */
              passed: number;
              /** @description Not started yet (no capacity yet, or waiting their turn). */
              queued: number;
              /** @description Started, not finished. */
              running: number;
              /** @description N × K. */
              total: number;
            };
            /**
             * Format: date-time
             * @description When it was created.
             */
            created_at: string | null;
            /** @description The run id (`ev-` and 16 hex digits). */
            id: string;
            /** @description What the run is waiting for, or how it ended, for people. */
            message: string | null;
            /**
             * @description `agent` or `replay`.
             * @enum {unknown}
             */
            mode: 'agent' | 'replay';
            /** @description A reward at or above this passes. */
            pass_threshold: number;
            /** @description The reservation whose Macs run the attempts. */
            reservation_id: string;
            /**
             * Format: date-time
             * @description When its first attempt was created.
             */
            started_at: string | null;
            /**
             * @description `pending`, `running`, `completed` (every attempt ended) or `cancelled`.
             * @enum {unknown}
             */
            status: 'pending' | 'running' | 'completed' | 'cancelled';
            /** @description The tasks run, by id, in order. */
            tasks: string[];
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getEvaluationRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run id, as the create answered it. */
        runID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The agent endpoint; null in replay mode. */
            agent_url: string | null;
            /** @description Attempts of each task (K). */
            attempts: number;
            /** @description A cancel was asked for. */
            cancelled: boolean;
            /**
             * Format: date-time
             * @description When it completed or was cancelled.
             */
            completed_at: string | null;
            /** @description The bound asked for; null: the capacity’s. */
            concurrency: number | null;
            /** @description The attempts by outcome. */
            counts: {
              /** @description Stopped by a cancel, or never started because the run was cancelled. */
              cancelled: number;
              /** @description Could not be graded (setup failed, the agent could not be reached, …). */
              errored: number;
              /** @description Graded below it. */
              failed: number;
              /** @description Graded with a reward at or above the pass threshold. */
              passed: number;
              /** @description Not started yet (no capacity yet, or waiting their turn). */
              queued: number;
              /** @description Started, not finished. */
              running: number;
              /** @description N × K. */
              total: number;
            };
            /**
             * Format: date-time
             * @description When it was created.
             */
            created_at: string | null;
            /** @description The run id (`ev-` and 16 hex digits). */
            id: string;
            /** @description What the run is waiting for, or how it ended, for people. */
            message: string | null;
            /**
             * @description `agent` or `replay`.
             * @enum {unknown}
             */
            mode: 'agent' | 'replay';
            /** @description A reward at or above this passes. */
            pass_threshold: number;
            /** @description The reservation whose Macs run the attempts. */
            reservation_id: string;
            /**
             * Format: date-time
             * @description When its first attempt was created.
             */
            started_at: string | null;
            /**
             * @description `pending`, `running`, `completed` (every attempt ended) or `cancelled`.
             * @enum {unknown}
             */
            status: 'pending' | 'running' | 'completed' | 'cancelled';
            /** @description The tasks run, by id, in order. */
            tasks: string[];
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  deleteEvaluationRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run id, as the create answered it. */
        runID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  cancelEvaluationRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run id, as the create answered it. */
        runID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The agent endpoint; null in replay mode. */
            agent_url: string | null;
            /** @description Attempts of each task (K). */
            attempts: number;
            /** @description A cancel was asked for. */
            cancelled: boolean;
            /**
             * Format: date-time
             * @description When it completed or was cancelled.
             */
            completed_at: string | null;
            /** @description The bound asked for; null: the capacity’s. */
            concurrency: number | null;
            /** @description The attempts by outcome. */
            counts: {
              /** @description Stopped by a cancel, or never started because the run was cancelled. */
              cancelled: number;
              /** @description Could not be graded (setup failed, the agent could not be reached, …). */
              errored: number;
              /** @description Graded below it. */
              failed: number;
              /** @description Graded with a reward at or above the pass threshold. */
              passed: number;
              /** @description Not started yet (no capacity yet, or waiting their turn). */
              queued: number;
              /** @description Started, not finished. */
              running: number;
              /** @description N × K. */
              total: number;
            };
            /**
             * Format: date-time
             * @description When it was created.
             */
            created_at: string | null;
            /** @description The run id (`ev-` and 16 hex digits). */
            id: string;
            /** @description What the run is waiting for, or how it ended, for people. */
            message: string | null;
            /**
             * @description `agent` or `replay`.
             * @enum {unknown}
             */
            mode: 'agent' | 'replay';
            /** @description A reward at or above this passes. */
            pass_threshold: number;
            /** @description The reservation whose Macs run the attempts. */
            reservation_id: string;
            /**
             * Format: date-time
             * @description When its first attempt was created.
             */
            started_at: string | null;
            /**
             * @description `pending`, `running`, `completed` (every attempt ended) or `cancelled`.
             * @enum {unknown}
             */
            status: 'pending' | 'running' | 'completed' | 'cancelled';
            /** @description The tasks run, by id, in order. */
            tasks: string[];
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getEvaluationRunResults: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run id, as the create answered it. */
        runID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Pass rates by category (`(none)` for tasks without one). */
            by_category: {
              [key: string]: {
                /** @description Attempts in the group. */
                attempts: number;
                /** @description Ended without a grade. */
                errored: number;
                /** @description Passed + failed. */
                graded: number;
                /** @description Mean reward of the graded; null before any. */
                mean_reward: number | null;
                /** @description Passed of those that ended (passed, failed, errored); null before any. */
                pass_rate: number | null;
                /** @description Graded at or above the pass threshold. */
                passed: number;
              };
            };
            /** @description Pass rates by task id. */
            by_task: {
              [key: string]: {
                /** @description Attempts in the group. */
                attempts: number;
                /** @description Ended without a grade. */
                errored: number;
                /** @description Passed + failed. */
                graded: number;
                /** @description Mean reward of the graded; null before any. */
                mean_reward: number | null;
                /** @description Passed of those that ended (passed, failed, errored); null before any. */
                pass_rate: number | null;
                /** @description Graded at or above the pass threshold. */
                passed: number;
              };
            };
            /** @description Pass rate of a group of attempts. */
            overall: {
              /** @description Attempts in the group. */
              attempts: number;
              /** @description Ended without a grade. */
              errored: number;
              /** @description Passed + failed. */
              graded: number;
              /** @description Mean reward of the graded; null before any. */
              mean_reward: number | null;
              /** @description Passed of those that ended (passed, failed, errored); null before any. */
              pass_rate: number | null;
              /** @description Graded at or above the pass threshold. */
              passed: number;
            };
            /** @description One per (task, attempt), in task order. */
            rows: {
              /** @description Which attempt of the task (1 to K). */
              attempt: number;
              /** @description The attempt; null until it is created. */
              attempt_id: string | null;
              /** @description Its category; null when none. */
              category: string | null;
              /** @description From its sandbox running to its end, in seconds. */
              duration_s: number | null;
              /**
               * Format: date-time
               * @description When it ended.
               */
              finished_at: string | null;
              /** @description Why it passed, failed or errored, or what it waits for. */
              message: string | null;
              /**
               * @description What it came to (`queued`: not started yet).
               * @enum {unknown}
               */
              outcome: 'queued' | 'running' | 'passed' | 'failed' | 'errored' | 'cancelled';
              /** @description The attempt’s phase (`waiting`, `starting`, `setup`, `acting`, `grading`, …). */
              phase: string | null;
              /** @description The grader’s reward; null until graded. */
              reward: number | null;
              /** @description The sandbox it ran in (deleted once it ended). */
              sandbox_id: string | null;
              /**
               * Format: date-time
               * @description When its sandbox was written.
               */
              started_at: string | null;
              /** @description The task attempted. */
              task: string;
              /** @description The task holding its trajectory and recording (`/v1/me/tasks/{id}/…`). */
              trajectory_id: string | null;
            }[];
            /** @description The run, with live counts. */
            run: {
              /** @description The agent endpoint; null in replay mode. */
              agent_url: string | null;
              /** @description Attempts of each task (K). */
              attempts: number;
              /** @description A cancel was asked for. */
              cancelled: boolean;
              /**
               * Format: date-time
               * @description When it completed or was cancelled.
               */
              completed_at: string | null;
              /** @description The bound asked for; null: the capacity’s. */
              concurrency: number | null;
              /** @description The attempts by outcome. */
              counts: {
                /** @description Stopped by a cancel, or never started because the run was cancelled. */
                cancelled: number;
                /** @description Could not be graded (setup failed, the agent could not be reached, …). */
                errored: number;
                /** @description Graded below it. */
                failed: number;
                /** @description Graded with a reward at or above the pass threshold. */
                passed: number;
                /** @description Not started yet (no capacity yet, or waiting their turn). */
                queued: number;
                /** @description Started, not finished. */
                running: number;
                /** @description N × K. */
                total: number;
              };
              /**
               * Format: date-time
               * @description When it was created.
               */
              created_at: string | null;
              /** @description The run id (`ev-` and 16 hex digits). */
              id: string;
              /** @description What the run is waiting for, or how it ended, for people. */
              message: string | null;
              /**
               * @description `agent` or `replay`.
               * @enum {unknown}
               */
              mode: 'agent' | 'replay';
              /** @description A reward at or above this passes. */
              pass_threshold: number;
              /** @description The reservation whose Macs run the attempts. */
              reservation_id: string;
              /**
               * Format: date-time
               * @description When its first attempt was created.
               */
              started_at: string | null;
              /**
               * @description `pending`, `running`, `completed` (every attempt ended) or `cancelled`.
               * @enum {unknown}
               */
              status: 'pending' | 'running' | 'completed' | 'cancelled';
              /** @description The tasks run, by id, in order. */
              tasks: string[];
            };
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getEvaluationRunResultsCsv: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run id, as the create answered it. */
        runID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description CSV. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/csv': string;
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  listMyKeys: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description When the key was issued.
             */
            created_at: string;
            /** @description The key this request was made with (or signed in with). */
            current: boolean;
            /**
             * Format: date-time
             * @description When the key stops working; null: it does not expire.
             */
            expires_at: string | null;
            /** @description The plaintext, kept sealed with a server-held key; null for a key issued before sealing existed that has not been used to sign in since. */
            key: string | null;
            /** @description The ApiKey resource: `k-` + 40 hex digits of the hash. */
            name: string;
            /** @description The first characters of the key, to tell keys apart. */
            prefix: string;
          }[];
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  rotateMyKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description When the key was issued.
             */
            created_at: string;
            /** @description The key this request was made with (or signed in with). */
            current: boolean;
            /**
             * Format: date-time
             * @description When the key stops working; null: it does not expire.
             */
            expires_at: string | null;
            /** @description The new account key. */
            key: string;
            /** @description The ApiKey resource: `k-` + 40 hex digits of the hash. */
            name: string;
            /** @description The first characters of the key, to tell keys apart. */
            prefix: string;
            /** @description The name of the key revoked by the rotation. */
            revoked: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  listTasks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A grouping for people (e.g. `browser`, `office`); null when none. */
            category: string | null;
            /** @description When the task was created. */
            created_at: string | null;
            /** @description The task has a grader (a replay reports a reward). */
            has_grader: boolean;
            /** @description The screen recording (MP4) of the session is finalized. */
            has_recording: boolean;
            /** @description The task id (the Task resource's name). */
            id: string;
            /** @description What the demonstrator was asked to do. */
            instruction: string;
            /** @description `recording`, `saved`, `finalizing` (recording being closed), `ready` or `failed`; null before any. */
            phase: string | null;
            /** @description Recorded actions in the trajectory. */
            step_count: number;
          }[];
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  createTask: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description A grouping for people (e.g. `browser`). */
          category?: string;
          /** @description A shell script (exit 0 → reward 1) or a grader of checks. */
          grader?:
            | string
            | {
                /** @description The checks, evaluated in order (each is reported). */
                checks: (
                  | {
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description What the command must do; by default, exit 0. */
                      expect?: {
                        /** @description The exit code the command must end with (default 0); `null` accepts any. */
                        exit_code?: number | null;
                        /** @description Compare the stdout and stderr expectations ignoring case. */
                        ignore_case?: boolean;
                        /** @description Standard error contains this (an array: every one of these). */
                        stderr_contains?: string | string[];
                        /** @description Standard error contains none of these. */
                        stderr_excludes?: string[];
                        /** @description Standard output contains this (an array: every one of these). */
                        stdout_contains?: string | string[];
                        /** @description Standard output, without its trailing newlines, is exactly this. */
                        stdout_equals?: string;
                        /** @description Standard output contains none of these. */
                        stdout_excludes?: string[];
                        /** @description Standard output matches this regular expression (RE2 syntax). */
                        stdout_matches?: string;
                      };
                      /** @description A label for people, shown with the check’s result. */
                      name?: string;
                      /** @description The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold. */
                      reward_from_stdout?: boolean;
                      /** @description The reward the check earns when it passes (default 1). */
                      score?: number;
                      /** @description The command's deadline in seconds (default 120; a timeout fails the check). */
                      timeout_s?: number;
                      /**
                       * @description `command`: run a command; its result decides.
                       * @enum {string}
                       */
                      type: 'command';
                      /** @description Its weight under `weighted` (default 1). */
                      weight?: number;
                    }
                  | {
                      /** @description Pass when no node matches (a window was closed) instead. */
                      absent?: boolean;
                      /** @description A node of the window tree. */
                      match: {
                        /** @description The node's application (its window class on Linux). */
                        app?: string;
                        /** @description The node has (or has not) the keyboard focus. */
                        focused?: boolean;
                        /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                        ignore_case?: boolean;
                        /** @description The node is named exactly this. */
                        name?: string;
                        /** @description The node's name contains this. */
                        name_contains?: string;
                        /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                        name_matches?: string;
                        /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                        role?: string;
                      };
                      /** @description A label for people, shown with the check’s result. */
                      name?: string;
                      /** @description The reward the check earns when it passes (default 1). */
                      score?: number;
                      /**
                       * @description `window`: a node of the window tree.
                       * @enum {string}
                       */
                      type: 'window';
                      /** @description Its weight under `weighted` (default 1). */
                      weight?: number;
                    }
                  | {
                      /** @description Its content contains this (an array: every one of these). */
                      contains?: string | string[];
                      /** @description Its content, without trailing newlines, is exactly this. */
                      equals?: string;
                      /** @description Its content contains none of these. */
                      excludes?: string[];
                      /** @description The file exists (default true); `false`: pass when it does not. */
                      exists?: boolean;
                      /** @description Compare `equals`, `contains` and `matches` ignoring case. */
                      ignore_case?: boolean;
                      /** @description The value `json_path` selects equals this JSON value. */
                      json_equals?: unknown;
                      /** @description The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several). */
                      json_path?: string;
                      /** @description Its content matches this regular expression (RE2 syntax). */
                      matches?: string;
                      /** @description A label for people, shown with the check’s result. */
                      name?: string;
                      /** @description The file (relative paths are in the VM user's home). */
                      path: string;
                      /** @description The reward the check earns when it passes (default 1). */
                      score?: number;
                      /**
                       * @description `file`: a file in the VM.
                       * @enum {string}
                       */
                      type: 'file';
                      /** @description Its weight under `weighted` (default 1). */
                      weight?: number;
                    }
                )[];
                /**
                 * @description `all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.
                 * @enum {unknown}
                 */
                combine?: 'all' | 'any' | 'weighted';
                /** @description Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`). */
                delay_s?: number;
              };
          /** @description The task id; default `tk-<12 hex>`. Not `replays`. */
          id?: string;
          /** @description What the demonstrator is asked to do. */
          instruction?: string;
          /** @description Setup steps, run in order; the first that fails stops the setup. */
          setup?: (
            | {
                /** @description An uploaded blob of the account (`POST /v1/blobs`), by its id. */
                blob?: string;
                /** @description Make the file executable (`chmod +x`). */
                executable?: boolean;
                /** @description Where to write it in the VM (relative paths are in the VM user's home); parents are created. */
                path: string;
                /** @description The SHA-256 the bytes must have (the file is removed and the step fails otherwise). */
                sha256?: string;
                /** @description The step's deadline in seconds (default 600); the whole setup's deadline bounds it too. */
                timeout_s?: number;
                /**
                 * @description `download`: put a URL or an uploaded blob into the VM.
                 * @enum {string}
                 */
                type: 'download';
                /** @description An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in. */
                url?: string;
              }
            | {
                /** @description A shell command line, or argv (program and arguments). */
                command: string | string[];
                /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                timeout_s?: number;
                /**
                 * @description `launch`: start an app in the desktop session and wait for its window.
                 * @enum {string}
                 */
                type: 'launch';
                /** @description The window to wait for; default: any new top-level window. `false` returns once started. */
                wait_for?:
                  | {
                      /** @description The node's application (its window class on Linux). */
                      app?: string;
                      /** @description The node has (or has not) the keyboard focus. */
                      focused?: boolean;
                      /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                      ignore_case?: boolean;
                      /** @description The node is named exactly this. */
                      name?: string;
                      /** @description The node's name contains this. */
                      name_contains?: string;
                      /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                      name_matches?: string;
                      /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                      role?: string;
                    }
                  | false;
              }
            | {
                /** @description The file (relative paths are in the VM user's home), or a URL. */
                path: string;
                /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                timeout_s?: number;
                /**
                 * @description `open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).
                 * @enum {string}
                 */
                type: 'open';
                /** @description The window to wait for; default: a window whose name contains the file's name. `false` does not wait. */
                wait_for?:
                  | {
                      /** @description The node's application (its window class on Linux). */
                      app?: string;
                      /** @description The node has (or has not) the keyboard focus. */
                      focused?: boolean;
                      /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                      ignore_case?: boolean;
                      /** @description The node is named exactly this. */
                      name?: string;
                      /** @description The node's name contains this. */
                      name_contains?: string;
                      /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                      name_matches?: string;
                      /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                      role?: string;
                    }
                  | false;
              }
            | {
                /** @description Run it again until `expect` holds, at most this many times (default 1), within the deadline. */
                attempts?: number;
                /** @description A shell command line, or argv (program and arguments). */
                command: string | string[];
                /** @description When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`). */
                continue_on_failure?: boolean;
                /** @description What the command must do; by default, exit 0. */
                expect?: {
                  /** @description The exit code the command must end with (default 0); `null` accepts any. */
                  exit_code?: number | null;
                  /** @description Compare the stdout and stderr expectations ignoring case. */
                  ignore_case?: boolean;
                  /** @description Standard error contains this (an array: every one of these). */
                  stderr_contains?: string | string[];
                  /** @description Standard error contains none of these. */
                  stderr_excludes?: string[];
                  /** @description Standard output contains this (an array: every one of these). */
                  stdout_contains?: string | string[];
                  /** @description Standard output, without its trailing newlines, is exactly this. */
                  stdout_equals?: string;
                  /** @description Standard output contains none of these. */
                  stdout_excludes?: string[];
                  /** @description Standard output matches this regular expression (RE2 syntax). */
                  stdout_matches?: string;
                };
                /** @description Pause between attempts (default 500). */
                interval_ms?: number;
                /** @description The step's deadline in seconds (default 120); the whole setup's deadline bounds it too. */
                timeout_s?: number;
                /**
                 * @description `command`: run a command and check its result.
                 * @enum {string}
                 */
                type: 'command';
              }
            | {
                /** @description How long. */
                seconds: number;
                /**
                 * @description `sleep`: wait.
                 * @enum {string}
                 */
                type: 'sleep';
              }
          )[];
          /** @description Shell script run before recording and before a replay. */
          setup_script?: string;
          /** @description An ATIF document (or an old `sandbay-atif/1` export) to import: its actions become the steps (without screenshots). */
          trajectory?: unknown;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Application state captured at save, for graders. */
            app_state: {
              [key: string]: unknown;
            } | null;
            /** @description A grouping for people (e.g. `browser`, `office`); null when none. */
            category: string | null;
            /** @description When the task was created. */
            created_at: string | null;
            /** @description A shell script whose exit code 0 means success (reward 1), or a grader of checks (docs/evaluation.md). */
            grader:
              | (
                  | string
                  | {
                      /** @description The checks, evaluated in order (each is reported). */
                      checks: (
                        | {
                            /** @description A shell command line, or argv (program and arguments). */
                            command: string | string[];
                            /** @description What the command must do; by default, exit 0. */
                            expect?: {
                              /** @description The exit code the command must end with (default 0); `null` accepts any. */
                              exit_code?: number | null;
                              /** @description Compare the stdout and stderr expectations ignoring case. */
                              ignore_case?: boolean;
                              /** @description Standard error contains this (an array: every one of these). */
                              stderr_contains?: string | string[];
                              /** @description Standard error contains none of these. */
                              stderr_excludes?: string[];
                              /** @description Standard output contains this (an array: every one of these). */
                              stdout_contains?: string | string[];
                              /** @description Standard output, without its trailing newlines, is exactly this. */
                              stdout_equals?: string;
                              /** @description Standard output contains none of these. */
                              stdout_excludes?: string[];
                              /** @description Standard output matches this regular expression (RE2 syntax). */
                              stdout_matches?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold. */
                            reward_from_stdout?: boolean;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /** @description The command's deadline in seconds (default 120; a timeout fails the check). */
                            timeout_s?: number;
                            /**
                             * @description `command`: run a command; its result decides.
                             * @enum {string}
                             */
                            type: 'command';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Pass when no node matches (a window was closed) instead. */
                            absent?: boolean;
                            /** @description A node of the window tree. */
                            match: {
                              /** @description The node's application (its window class on Linux). */
                              app?: string;
                              /** @description The node has (or has not) the keyboard focus. */
                              focused?: boolean;
                              /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                              ignore_case?: boolean;
                              /** @description The node is named exactly this. */
                              name?: string;
                              /** @description The node's name contains this. */
                              name_contains?: string;
                              /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                              name_matches?: string;
                              /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                              role?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `window`: a node of the window tree.
                             * @enum {string}
                             */
                            type: 'window';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Its content contains this (an array: every one of these). */
                            contains?: string | string[];
                            /** @description Its content, without trailing newlines, is exactly this. */
                            equals?: string;
                            /** @description Its content contains none of these. */
                            excludes?: string[];
                            /** @description The file exists (default true); `false`: pass when it does not. */
                            exists?: boolean;
                            /** @description Compare `equals`, `contains` and `matches` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The value `json_path` selects equals this JSON value. */
                            json_equals?: unknown;
                            /** @description The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several). */
                            json_path?: string;
                            /** @description Its content matches this regular expression (RE2 syntax). */
                            matches?: string;
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The file (relative paths are in the VM user's home). */
                            path: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `file`: a file in the VM.
                             * @enum {string}
                             */
                            type: 'file';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                      )[];
                      /**
                       * @description `all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.
                       * @enum {unknown}
                       */
                      combine?: 'all' | 'any' | 'weighted';
                      /** @description Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`). */
                      delay_s?: number;
                    }
                )
              | null;
            /** @description The task has a grader (a replay reports a reward). */
            has_grader: boolean;
            /** @description The screen recording (MP4) of the session is finalized. */
            has_recording: boolean;
            /** @description The task id (the Task resource's name). */
            id: string;
            /** @description What the demonstrator was asked to do. */
            instruction: string;
            /** @description `recording`, `saved`, `finalizing` (recording being closed), `ready` or `failed`; null before any. */
            phase: string | null;
            /** @description Where to download the MP4 recording; null until finalized. */
            recording_url: string | null;
            /** @description Setup steps run after the setup script (docs/evaluation.md); null when none. */
            setup:
              | (
                  | {
                      /** @description An uploaded blob of the account (`POST /v1/blobs`), by its id. */
                      blob?: string;
                      /** @description Make the file executable (`chmod +x`). */
                      executable?: boolean;
                      /** @description Where to write it in the VM (relative paths are in the VM user's home); parents are created. */
                      path: string;
                      /** @description The SHA-256 the bytes must have (the file is removed and the step fails otherwise). */
                      sha256?: string;
                      /** @description The step's deadline in seconds (default 600); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `download`: put a URL or an uploaded blob into the VM.
                       * @enum {string}
                       */
                      type: 'download';
                      /** @description An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in. */
                      url?: string;
                    }
                  | {
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `launch`: start an app in the desktop session and wait for its window.
                       * @enum {string}
                       */
                      type: 'launch';
                      /** @description The window to wait for; default: any new top-level window. `false` returns once started. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description The file (relative paths are in the VM user's home), or a URL. */
                      path: string;
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).
                       * @enum {string}
                       */
                      type: 'open';
                      /** @description The window to wait for; default: a window whose name contains the file's name. `false` does not wait. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description Run it again until `expect` holds, at most this many times (default 1), within the deadline. */
                      attempts?: number;
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`). */
                      continue_on_failure?: boolean;
                      /** @description What the command must do; by default, exit 0. */
                      expect?: {
                        /** @description The exit code the command must end with (default 0); `null` accepts any. */
                        exit_code?: number | null;
                        /** @description Compare the stdout and stderr expectations ignoring case. */
                        ignore_case?: boolean;
                        /** @description Standard error contains this (an array: every one of these). */
                        stderr_contains?: string | string[];
                        /** @description Standard error contains none of these. */
                        stderr_excludes?: string[];
                        /** @description Standard output contains this (an array: every one of these). */
                        stdout_contains?: string | string[];
                        /** @description Standard output, without its trailing newlines, is exactly this. */
                        stdout_equals?: string;
                        /** @description Standard output contains none of these. */
                        stdout_excludes?: string[];
                        /** @description Standard output matches this regular expression (RE2 syntax). */
                        stdout_matches?: string;
                      };
                      /** @description Pause between attempts (default 500). */
                      interval_ms?: number;
                      /** @description The step's deadline in seconds (default 120); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `command`: run a command and check its result.
                       * @enum {string}
                       */
                      type: 'command';
                    }
                  | {
                      /** @description How long. */
                      seconds: number;
                      /**
                       * @description `sleep`: wait.
                       * @enum {string}
                       */
                      type: 'sleep';
                    }
                )[]
              | null;
            /** @description Shell script run before recording and before a replay. */
            setup_script: string | null;
            /** @description Recorded actions in the trajectory. */
            step_count: number;
            /** @description The recorded actions, in order. */
            steps: {
              /** @description The call's arguments as the API received them. */
              args: {
                [key: string]: unknown;
              };
              /** @description When the action ran (RFC 3339). */
              at: string;
              /** @description The tool called: the API operation (e.g. `click`, `type_text`). */
              function: string;
              /** @description Position of the step in the trajectory, from 0. */
              index: number;
              /** @description Where to download the PNG observed after the step; null if none. */
              screenshot_url: string | null;
            }[];
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getTask: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A task name (^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$). */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Application state captured at save, for graders. */
            app_state: {
              [key: string]: unknown;
            } | null;
            /** @description A grouping for people (e.g. `browser`, `office`); null when none. */
            category: string | null;
            /** @description When the task was created. */
            created_at: string | null;
            /** @description A shell script whose exit code 0 means success (reward 1), or a grader of checks (docs/evaluation.md). */
            grader:
              | (
                  | string
                  | {
                      /** @description The checks, evaluated in order (each is reported). */
                      checks: (
                        | {
                            /** @description A shell command line, or argv (program and arguments). */
                            command: string | string[];
                            /** @description What the command must do; by default, exit 0. */
                            expect?: {
                              /** @description The exit code the command must end with (default 0); `null` accepts any. */
                              exit_code?: number | null;
                              /** @description Compare the stdout and stderr expectations ignoring case. */
                              ignore_case?: boolean;
                              /** @description Standard error contains this (an array: every one of these). */
                              stderr_contains?: string | string[];
                              /** @description Standard error contains none of these. */
                              stderr_excludes?: string[];
                              /** @description Standard output contains this (an array: every one of these). */
                              stdout_contains?: string | string[];
                              /** @description Standard output, without its trailing newlines, is exactly this. */
                              stdout_equals?: string;
                              /** @description Standard output contains none of these. */
                              stdout_excludes?: string[];
                              /** @description Standard output matches this regular expression (RE2 syntax). */
                              stdout_matches?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold. */
                            reward_from_stdout?: boolean;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /** @description The command's deadline in seconds (default 120; a timeout fails the check). */
                            timeout_s?: number;
                            /**
                             * @description `command`: run a command; its result decides.
                             * @enum {string}
                             */
                            type: 'command';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Pass when no node matches (a window was closed) instead. */
                            absent?: boolean;
                            /** @description A node of the window tree. */
                            match: {
                              /** @description The node's application (its window class on Linux). */
                              app?: string;
                              /** @description The node has (or has not) the keyboard focus. */
                              focused?: boolean;
                              /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                              ignore_case?: boolean;
                              /** @description The node is named exactly this. */
                              name?: string;
                              /** @description The node's name contains this. */
                              name_contains?: string;
                              /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                              name_matches?: string;
                              /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                              role?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `window`: a node of the window tree.
                             * @enum {string}
                             */
                            type: 'window';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Its content contains this (an array: every one of these). */
                            contains?: string | string[];
                            /** @description Its content, without trailing newlines, is exactly this. */
                            equals?: string;
                            /** @description Its content contains none of these. */
                            excludes?: string[];
                            /** @description The file exists (default true); `false`: pass when it does not. */
                            exists?: boolean;
                            /** @description Compare `equals`, `contains` and `matches` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The value `json_path` selects equals this JSON value. */
                            json_equals?: unknown;
                            /** @description The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several). */
                            json_path?: string;
                            /** @description Its content matches this regular expression (RE2 syntax). */
                            matches?: string;
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The file (relative paths are in the VM user's home). */
                            path: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `file`: a file in the VM.
                             * @enum {string}
                             */
                            type: 'file';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                      )[];
                      /**
                       * @description `all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.
                       * @enum {unknown}
                       */
                      combine?: 'all' | 'any' | 'weighted';
                      /** @description Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`). */
                      delay_s?: number;
                    }
                )
              | null;
            /** @description The task has a grader (a replay reports a reward). */
            has_grader: boolean;
            /** @description The screen recording (MP4) of the session is finalized. */
            has_recording: boolean;
            /** @description The task id (the Task resource's name). */
            id: string;
            /** @description What the demonstrator was asked to do. */
            instruction: string;
            /** @description `recording`, `saved`, `finalizing` (recording being closed), `ready` or `failed`; null before any. */
            phase: string | null;
            /** @description Where to download the MP4 recording; null until finalized. */
            recording_url: string | null;
            /** @description Setup steps run after the setup script (docs/evaluation.md); null when none. */
            setup:
              | (
                  | {
                      /** @description An uploaded blob of the account (`POST /v1/blobs`), by its id. */
                      blob?: string;
                      /** @description Make the file executable (`chmod +x`). */
                      executable?: boolean;
                      /** @description Where to write it in the VM (relative paths are in the VM user's home); parents are created. */
                      path: string;
                      /** @description The SHA-256 the bytes must have (the file is removed and the step fails otherwise). */
                      sha256?: string;
                      /** @description The step's deadline in seconds (default 600); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `download`: put a URL or an uploaded blob into the VM.
                       * @enum {string}
                       */
                      type: 'download';
                      /** @description An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in. */
                      url?: string;
                    }
                  | {
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `launch`: start an app in the desktop session and wait for its window.
                       * @enum {string}
                       */
                      type: 'launch';
                      /** @description The window to wait for; default: any new top-level window. `false` returns once started. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description The file (relative paths are in the VM user's home), or a URL. */
                      path: string;
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).
                       * @enum {string}
                       */
                      type: 'open';
                      /** @description The window to wait for; default: a window whose name contains the file's name. `false` does not wait. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description Run it again until `expect` holds, at most this many times (default 1), within the deadline. */
                      attempts?: number;
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`). */
                      continue_on_failure?: boolean;
                      /** @description What the command must do; by default, exit 0. */
                      expect?: {
                        /** @description The exit code the command must end with (default 0); `null` accepts any. */
                        exit_code?: number | null;
                        /** @description Compare the stdout and stderr expectations ignoring case. */
                        ignore_case?: boolean;
                        /** @description Standard error contains this (an array: every one of these). */
                        stderr_contains?: string | string[];
                        /** @description Standard error contains none of these. */
                        stderr_excludes?: string[];
                        /** @description Standard output contains this (an array: every one of these). */
                        stdout_contains?: string | string[];
                        /** @description Standard output, without its trailing newlines, is exactly this. */
                        stdout_equals?: string;
                        /** @description Standard output contains none of these. */
                        stdout_excludes?: string[];
                        /** @description Standard output matches this regular expression (RE2 syntax). */
                        stdout_matches?: string;
                      };
                      /** @description Pause between attempts (default 500). */
                      interval_ms?: number;
                      /** @description The step's deadline in seconds (default 120); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `command`: run a command and check its result.
                       * @enum {string}
                       */
                      type: 'command';
                    }
                  | {
                      /** @description How long. */
                      seconds: number;
                      /**
                       * @description `sleep`: wait.
                       * @enum {string}
                       */
                      type: 'sleep';
                    }
                )[]
              | null;
            /** @description Shell script run before recording and before a replay. */
            setup_script: string | null;
            /** @description Recorded actions in the trajectory. */
            step_count: number;
            /** @description The recorded actions, in order. */
            steps: {
              /** @description The call's arguments as the API received them. */
              args: {
                [key: string]: unknown;
              };
              /** @description When the action ran (RFC 3339). */
              at: string;
              /** @description The tool called: the API operation (e.g. `click`, `type_text`). */
              function: string;
              /** @description Position of the step in the trajectory, from 0. */
              index: number;
              /** @description Where to download the PNG observed after the step; null if none. */
              screenshot_url: string | null;
            }[];
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  deleteTask: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The task id. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  updateTask: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The task id. */
        id: string;
      };
      cookie?: never;
    };
    /** @description `null` removes an optional field. */
    requestBody: {
      content: {
        'application/json': {
          /** @description A grouping for people (e.g. `browser`). `null` removes it. */
          category?: string | null;
          /** @description A shell script (exit 0 → reward 1) or a grader of checks. `null` removes it. */
          grader?:
            | (
                | string
                | {
                    /** @description The checks, evaluated in order (each is reported). */
                    checks: (
                      | {
                          /** @description A shell command line, or argv (program and arguments). */
                          command: string | string[];
                          /** @description What the command must do; by default, exit 0. */
                          expect?: {
                            /** @description The exit code the command must end with (default 0); `null` accepts any. */
                            exit_code?: number | null;
                            /** @description Compare the stdout and stderr expectations ignoring case. */
                            ignore_case?: boolean;
                            /** @description Standard error contains this (an array: every one of these). */
                            stderr_contains?: string | string[];
                            /** @description Standard error contains none of these. */
                            stderr_excludes?: string[];
                            /** @description Standard output contains this (an array: every one of these). */
                            stdout_contains?: string | string[];
                            /** @description Standard output, without its trailing newlines, is exactly this. */
                            stdout_equals?: string;
                            /** @description Standard output contains none of these. */
                            stdout_excludes?: string[];
                            /** @description Standard output matches this regular expression (RE2 syntax). */
                            stdout_matches?: string;
                          };
                          /** @description A label for people, shown with the check’s result. */
                          name?: string;
                          /** @description The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold. */
                          reward_from_stdout?: boolean;
                          /** @description The reward the check earns when it passes (default 1). */
                          score?: number;
                          /** @description The command's deadline in seconds (default 120; a timeout fails the check). */
                          timeout_s?: number;
                          /**
                           * @description `command`: run a command; its result decides.
                           * @enum {string}
                           */
                          type: 'command';
                          /** @description Its weight under `weighted` (default 1). */
                          weight?: number;
                        }
                      | {
                          /** @description Pass when no node matches (a window was closed) instead. */
                          absent?: boolean;
                          /** @description A node of the window tree. */
                          match: {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          };
                          /** @description A label for people, shown with the check’s result. */
                          name?: string;
                          /** @description The reward the check earns when it passes (default 1). */
                          score?: number;
                          /**
                           * @description `window`: a node of the window tree.
                           * @enum {string}
                           */
                          type: 'window';
                          /** @description Its weight under `weighted` (default 1). */
                          weight?: number;
                        }
                      | {
                          /** @description Its content contains this (an array: every one of these). */
                          contains?: string | string[];
                          /** @description Its content, without trailing newlines, is exactly this. */
                          equals?: string;
                          /** @description Its content contains none of these. */
                          excludes?: string[];
                          /** @description The file exists (default true); `false`: pass when it does not. */
                          exists?: boolean;
                          /** @description Compare `equals`, `contains` and `matches` ignoring case. */
                          ignore_case?: boolean;
                          /** @description The value `json_path` selects equals this JSON value. */
                          json_equals?: unknown;
                          /** @description The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several). */
                          json_path?: string;
                          /** @description Its content matches this regular expression (RE2 syntax). */
                          matches?: string;
                          /** @description A label for people, shown with the check’s result. */
                          name?: string;
                          /** @description The file (relative paths are in the VM user's home). */
                          path: string;
                          /** @description The reward the check earns when it passes (default 1). */
                          score?: number;
                          /**
                           * @description `file`: a file in the VM.
                           * @enum {string}
                           */
                          type: 'file';
                          /** @description Its weight under `weighted` (default 1). */
                          weight?: number;
                        }
                    )[];
                    /**
                     * @description `all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.
                     * @enum {unknown}
                     */
                    combine?: 'all' | 'any' | 'weighted';
                    /** @description Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`). */
                    delay_s?: number;
                  }
              )
            | null;
          /** @description What the demonstrator is asked to do. */
          instruction?: string;
          /** @description Setup steps, run in order; the first that fails stops the setup. `null` removes it. */
          setup?:
            | (
                | {
                    /** @description An uploaded blob of the account (`POST /v1/blobs`), by its id. */
                    blob?: string;
                    /** @description Make the file executable (`chmod +x`). */
                    executable?: boolean;
                    /** @description Where to write it in the VM (relative paths are in the VM user's home); parents are created. */
                    path: string;
                    /** @description The SHA-256 the bytes must have (the file is removed and the step fails otherwise). */
                    sha256?: string;
                    /** @description The step's deadline in seconds (default 600); the whole setup's deadline bounds it too. */
                    timeout_s?: number;
                    /**
                     * @description `download`: put a URL or an uploaded blob into the VM.
                     * @enum {string}
                     */
                    type: 'download';
                    /** @description An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in. */
                    url?: string;
                  }
                | {
                    /** @description A shell command line, or argv (program and arguments). */
                    command: string | string[];
                    /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                    timeout_s?: number;
                    /**
                     * @description `launch`: start an app in the desktop session and wait for its window.
                     * @enum {string}
                     */
                    type: 'launch';
                    /** @description The window to wait for; default: any new top-level window. `false` returns once started. */
                    wait_for?:
                      | {
                          /** @description The node's application (its window class on Linux). */
                          app?: string;
                          /** @description The node has (or has not) the keyboard focus. */
                          focused?: boolean;
                          /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                          ignore_case?: boolean;
                          /** @description The node is named exactly this. */
                          name?: string;
                          /** @description The node's name contains this. */
                          name_contains?: string;
                          /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                          name_matches?: string;
                          /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                          role?: string;
                        }
                      | false;
                  }
                | {
                    /** @description The file (relative paths are in the VM user's home), or a URL. */
                    path: string;
                    /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                    timeout_s?: number;
                    /**
                     * @description `open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).
                     * @enum {string}
                     */
                    type: 'open';
                    /** @description The window to wait for; default: a window whose name contains the file's name. `false` does not wait. */
                    wait_for?:
                      | {
                          /** @description The node's application (its window class on Linux). */
                          app?: string;
                          /** @description The node has (or has not) the keyboard focus. */
                          focused?: boolean;
                          /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                          ignore_case?: boolean;
                          /** @description The node is named exactly this. */
                          name?: string;
                          /** @description The node's name contains this. */
                          name_contains?: string;
                          /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                          name_matches?: string;
                          /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                          role?: string;
                        }
                      | false;
                  }
                | {
                    /** @description Run it again until `expect` holds, at most this many times (default 1), within the deadline. */
                    attempts?: number;
                    /** @description A shell command line, or argv (program and arguments). */
                    command: string | string[];
                    /** @description When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`). */
                    continue_on_failure?: boolean;
                    /** @description What the command must do; by default, exit 0. */
                    expect?: {
                      /** @description The exit code the command must end with (default 0); `null` accepts any. */
                      exit_code?: number | null;
                      /** @description Compare the stdout and stderr expectations ignoring case. */
                      ignore_case?: boolean;
                      /** @description Standard error contains this (an array: every one of these). */
                      stderr_contains?: string | string[];
                      /** @description Standard error contains none of these. */
                      stderr_excludes?: string[];
                      /** @description Standard output contains this (an array: every one of these). */
                      stdout_contains?: string | string[];
                      /** @description Standard output, without its trailing newlines, is exactly this. */
                      stdout_equals?: string;
                      /** @description Standard output contains none of these. */
                      stdout_excludes?: string[];
                      /** @description Standard output matches this regular expression (RE2 syntax). */
                      stdout_matches?: string;
                    };
                    /** @description Pause between attempts (default 500). */
                    interval_ms?: number;
                    /** @description The step's deadline in seconds (default 120); the whole setup's deadline bounds it too. */
                    timeout_s?: number;
                    /**
                     * @description `command`: run a command and check its result.
                     * @enum {string}
                     */
                    type: 'command';
                  }
                | {
                    /** @description How long. */
                    seconds: number;
                    /**
                     * @description `sleep`: wait.
                     * @enum {string}
                     */
                    type: 'sleep';
                  }
              )[]
            | null;
          /** @description Shell script run before recording and before a replay. `null` removes it. */
          setup_script?: string | null;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Application state captured at save, for graders. */
            app_state: {
              [key: string]: unknown;
            } | null;
            /** @description A grouping for people (e.g. `browser`, `office`); null when none. */
            category: string | null;
            /** @description When the task was created. */
            created_at: string | null;
            /** @description A shell script whose exit code 0 means success (reward 1), or a grader of checks (docs/evaluation.md). */
            grader:
              | (
                  | string
                  | {
                      /** @description The checks, evaluated in order (each is reported). */
                      checks: (
                        | {
                            /** @description A shell command line, or argv (program and arguments). */
                            command: string | string[];
                            /** @description What the command must do; by default, exit 0. */
                            expect?: {
                              /** @description The exit code the command must end with (default 0); `null` accepts any. */
                              exit_code?: number | null;
                              /** @description Compare the stdout and stderr expectations ignoring case. */
                              ignore_case?: boolean;
                              /** @description Standard error contains this (an array: every one of these). */
                              stderr_contains?: string | string[];
                              /** @description Standard error contains none of these. */
                              stderr_excludes?: string[];
                              /** @description Standard output contains this (an array: every one of these). */
                              stdout_contains?: string | string[];
                              /** @description Standard output, without its trailing newlines, is exactly this. */
                              stdout_equals?: string;
                              /** @description Standard output contains none of these. */
                              stdout_excludes?: string[];
                              /** @description Standard output matches this regular expression (RE2 syntax). */
                              stdout_matches?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold. */
                            reward_from_stdout?: boolean;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /** @description The command's deadline in seconds (default 120; a timeout fails the check). */
                            timeout_s?: number;
                            /**
                             * @description `command`: run a command; its result decides.
                             * @enum {string}
                             */
                            type: 'command';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Pass when no node matches (a window was closed) instead. */
                            absent?: boolean;
                            /** @description A node of the window tree. */
                            match: {
                              /** @description The node's application (its window class on Linux). */
                              app?: string;
                              /** @description The node has (or has not) the keyboard focus. */
                              focused?: boolean;
                              /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                              ignore_case?: boolean;
                              /** @description The node is named exactly this. */
                              name?: string;
                              /** @description The node's name contains this. */
                              name_contains?: string;
                              /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                              name_matches?: string;
                              /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                              role?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `window`: a node of the window tree.
                             * @enum {string}
                             */
                            type: 'window';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Its content contains this (an array: every one of these). */
                            contains?: string | string[];
                            /** @description Its content, without trailing newlines, is exactly this. */
                            equals?: string;
                            /** @description Its content contains none of these. */
                            excludes?: string[];
                            /** @description The file exists (default true); `false`: pass when it does not. */
                            exists?: boolean;
                            /** @description Compare `equals`, `contains` and `matches` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The value `json_path` selects equals this JSON value. */
                            json_equals?: unknown;
                            /** @description The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several). */
                            json_path?: string;
                            /** @description Its content matches this regular expression (RE2 syntax). */
                            matches?: string;
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The file (relative paths are in the VM user's home). */
                            path: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `file`: a file in the VM.
                             * @enum {string}
                             */
                            type: 'file';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                      )[];
                      /**
                       * @description `all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.
                       * @enum {unknown}
                       */
                      combine?: 'all' | 'any' | 'weighted';
                      /** @description Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`). */
                      delay_s?: number;
                    }
                )
              | null;
            /** @description The task has a grader (a replay reports a reward). */
            has_grader: boolean;
            /** @description The screen recording (MP4) of the session is finalized. */
            has_recording: boolean;
            /** @description The task id (the Task resource's name). */
            id: string;
            /** @description What the demonstrator was asked to do. */
            instruction: string;
            /** @description `recording`, `saved`, `finalizing` (recording being closed), `ready` or `failed`; null before any. */
            phase: string | null;
            /** @description Where to download the MP4 recording; null until finalized. */
            recording_url: string | null;
            /** @description Setup steps run after the setup script (docs/evaluation.md); null when none. */
            setup:
              | (
                  | {
                      /** @description An uploaded blob of the account (`POST /v1/blobs`), by its id. */
                      blob?: string;
                      /** @description Make the file executable (`chmod +x`). */
                      executable?: boolean;
                      /** @description Where to write it in the VM (relative paths are in the VM user's home); parents are created. */
                      path: string;
                      /** @description The SHA-256 the bytes must have (the file is removed and the step fails otherwise). */
                      sha256?: string;
                      /** @description The step's deadline in seconds (default 600); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `download`: put a URL or an uploaded blob into the VM.
                       * @enum {string}
                       */
                      type: 'download';
                      /** @description An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in. */
                      url?: string;
                    }
                  | {
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `launch`: start an app in the desktop session and wait for its window.
                       * @enum {string}
                       */
                      type: 'launch';
                      /** @description The window to wait for; default: any new top-level window. `false` returns once started. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description The file (relative paths are in the VM user's home), or a URL. */
                      path: string;
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).
                       * @enum {string}
                       */
                      type: 'open';
                      /** @description The window to wait for; default: a window whose name contains the file's name. `false` does not wait. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description Run it again until `expect` holds, at most this many times (default 1), within the deadline. */
                      attempts?: number;
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`). */
                      continue_on_failure?: boolean;
                      /** @description What the command must do; by default, exit 0. */
                      expect?: {
                        /** @description The exit code the command must end with (default 0); `null` accepts any. */
                        exit_code?: number | null;
                        /** @description Compare the stdout and stderr expectations ignoring case. */
                        ignore_case?: boolean;
                        /** @description Standard error contains this (an array: every one of these). */
                        stderr_contains?: string | string[];
                        /** @description Standard error contains none of these. */
                        stderr_excludes?: string[];
                        /** @description Standard output contains this (an array: every one of these). */
                        stdout_contains?: string | string[];
                        /** @description Standard output, without its trailing newlines, is exactly this. */
                        stdout_equals?: string;
                        /** @description Standard output contains none of these. */
                        stdout_excludes?: string[];
                        /** @description Standard output matches this regular expression (RE2 syntax). */
                        stdout_matches?: string;
                      };
                      /** @description Pause between attempts (default 500). */
                      interval_ms?: number;
                      /** @description The step's deadline in seconds (default 120); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `command`: run a command and check its result.
                       * @enum {string}
                       */
                      type: 'command';
                    }
                  | {
                      /** @description How long. */
                      seconds: number;
                      /**
                       * @description `sleep`: wait.
                       * @enum {string}
                       */
                      type: 'sleep';
                    }
                )[]
              | null;
            /** @description Shell script run before recording and before a replay. */
            setup_script: string | null;
            /** @description Recorded actions in the trajectory. */
            step_count: number;
            /** @description The recorded actions, in order. */
            steps: {
              /** @description The call's arguments as the API received them. */
              args: {
                [key: string]: unknown;
              };
              /** @description When the action ran (RFC 3339). */
              at: string;
              /** @description The tool called: the API operation (e.g. `click`, `type_text`). */
              function: string;
              /** @description Position of the step in the trajectory, from 0. */
              index: number;
              /** @description Where to download the PNG observed after the step; null if none. */
              screenshot_url: string | null;
            }[];
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  downloadTask: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A task name (^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$). */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ZIP archive. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/zip': string;
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  exportTaskHarbor: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A task name (^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$). */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A gzipped tar of the task directory, entries at its root. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/gzip': string;
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  downloadTaskRecording: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A task name (^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$). */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description MP4 video. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'video/mp4': string;
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  replayTask: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A task name (^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$). */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The reservation whose Macs run the replay; inferred as for a sandbox create when omitted. */
          reservation_id?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description When the replay was started. */
            created_at: string | null;
            /** @description Each check of the grader and how it went, once completed; null without a grader. */
            grade: {
              /** @description Each check, in order. */
              checks: {
                /** @description `command`: the exit code. */
                exit_code?: number;
                /** @description Position of the check, from 0. */
                index: number;
                /** @description Why it passed or failed, for people. */
                message: string;
                /** @description The check’s label, if it has one. */
                name?: string;
                /** @description Whether it passed. */
                passed: boolean;
                /** @description What it earned (0 to 1). */
                reward: number;
                /** @description `command`: the end of its stdout (at most 2 KiB). */
                stdout?: string;
                /** @description The check kind. */
                type: string;
                /** @description Its weight (under `weighted`). */
                weight: number;
              }[];
              /**
               * @description How the checks were combined.
               * @enum {unknown}
               */
              combine: 'all' | 'any' | 'weighted';
              /** @description How long grading took. */
              duration_ms: number;
              /** @description The reward, in [0, 1]. */
              reward: number;
            } | null;
            /** @description The replay id (`rp-` and 32 hex digits). */
            id: string;
            /** @description Why the replay failed, for people. */
            message: string | null;
            /** @description The reservation whose Macs run it. */
            reservation_id: string;
            /** @description The grader's result (0 to 1) once completed; null without a grader. */
            reward: number | null;
            /** @description The sandbox the replay runs in; null until the reconciler names it. */
            sandbox_id: string | null;
            /** @description `pending`, `running`, `completed` or `failed`. */
            status: string;
            /** @description Recorded actions replayed so far. */
            steps_done: number;
            /** @description Recorded actions to replay. */
            steps_total: number | null;
            /** @description The task replayed. */
            task_id: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getTaskStepScreenshot: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A task name (^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$). */
        id: string;
        /** @description The step index, from 0 (`steps[].index` of the task). */
        index: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description PNG. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'image/png': string;
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getTaskTrajectory: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A task name (^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$). */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Agent Trajectory Interchange Format (ATIF-v1.6) document. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Who acted: `name` and `version`, optionally `model_name`. */
            agent: {
              /** @description Extensions (sandbay: `kind: human_demonstration`). */
              extra?: {
                [key: string]: unknown;
              };
              /** @description The model the agent ran (optional). */
              model_name?: string;
              /** @description The agent's name (`sandbay-collector` for a recorded demonstration). */
              name: string;
              /** @description The agent's version. */
              version: string;
            };
            /** @description A reference to a continued trajectory (optional in ATIF; sandbay sets none). */
            continued_trajectory_ref?: string;
            /** @description Extensions: sandbay puts the task (`extra.task`, as in `task.json`) here. */
            extra?: {
              [key: string]: unknown;
            };
            /** @description Totals over the trajectory (sandbay sets `total_steps`). */
            final_metrics?: {
              /** @description Extensions. */
              extra?: {
                [key: string]: unknown;
              };
              /** @description Cached tokens over the whole trajectory. */
              total_cached_tokens?: number;
              /** @description Completion tokens over the whole trajectory. */
              total_completion_tokens?: number;
              /** @description Cost of the whole trajectory in US dollars. */
              total_cost_usd?: number;
              /** @description Prompt tokens over the whole trajectory. */
              total_prompt_tokens?: number;
              /** @description Steps in the trajectory. */
              total_steps?: number;
            };
            /** @description Free-form notes for people. */
            notes?: string;
            /** @description The format version, `ATIF-v1.<minor>` (sandbay exports `ATIF-v1.6`). */
            schema_version: string;
            /** @description The session the trajectory records (sandbay: the task id). */
            session_id: string;
            /** @description The steps in order (at least one; `step_id` from 1 without gaps). */
            steps: {
              /** @description Extensions: sandbay puts the step `index` and the `screenshot` {url, bytes, sha256} here. */
              extra?: {
                [key: string]: unknown;
              };
              /** @description The step's message: a string, or (from v1.6) an array of content parts. */
              message:
                | string
                | (
                    | {
                        /** @description The text. */
                        text: string;
                        /**
                         * @description A text part.
                         * @enum {string}
                         */
                        type: 'text';
                      }
                    | {
                        /** @description Where the image is: its media type and relative path. */
                        source: {
                          /** @description e.g. `image/png`. */
                          media_type: string;
                          /** @description Relative to `trajectory.json`, e.g. `images/step-0003.png`. */
                          path: string;
                        };
                        /**
                         * @description An image part: the file lives beside `trajectory.json`.
                         * @enum {string}
                         */
                        type: 'image';
                      }
                  )[];
              /** @description Metrics of the step (agent steps only). */
              metrics?: {
                [key: string]: unknown;
              };
              /** @description The model of an agent step (agent steps only). */
              model_name?: string;
              /** @description What was observed after the tool calls (here the screenshot taken after the action). */
              observation?: {
                /** @description The results observed after the step, one per answered tool call. */
                results: {
                  /** @description The observed content: a string, or (from v1.6) an array of content parts. */
                  content?:
                    | (
                        | string
                        | (
                            | {
                                /** @description The text. */
                                text: string;
                                /**
                                 * @description A text part.
                                 * @enum {string}
                                 */
                                type: 'text';
                              }
                            | {
                                /** @description Where the image is: its media type and relative path. */
                                source: {
                                  /** @description e.g. `image/png`. */
                                  media_type: string;
                                  /** @description Relative to `trajectory.json`, e.g. `images/step-0003.png`. */
                                  path: string;
                                };
                                /**
                                 * @description An image part: the file lives beside `trajectory.json`.
                                 * @enum {string}
                                 */
                                type: 'image';
                              }
                          )[]
                      )
                    | null;
                  /** @description The `tool_call_id` this result answers (a tool call of its own step), or null. */
                  source_call_id?: string | null;
                  /** @description References to trajectories of subagents (optional in ATIF; sandbay sets none). */
                  subagent_trajectory_ref?: {
                    [key: string]: unknown;
                  }[];
                }[];
              };
              /** @description The agent's reasoning for the step (agent steps only). */
              reasoning_content?: string;
              /** @description The reasoning effort of the step (optional in ATIF). */
              reasoning_effort?: string | number;
              /** @description Who produced the step: `system`, `user` (here the instruction) or `agent` (here each recorded action). */
              source: 'system' | 'user' | 'agent';
              /** @description From 1, strictly sequential. */
              step_id: number;
              /**
               * Format: date-time
               * @description When the step happened (ISO-8601).
               */
              timestamp?: string;
              /** @description The tool calls the step made (agent steps only). */
              tool_calls?: {
                /** @description The arguments of the call. */
                arguments: {
                  [key: string]: unknown;
                };
                /** @description The function (tool) called. */
                function_name: string;
                /** @description Unique in the trajectory. */
                tool_call_id: string;
              }[];
            }[];
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  importTask: {
    parameters: {
      query?: never;
      header?: {
        /** @description At most 255 bytes. */
        'idempotency-key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description A grouping for people; default OSWorld's `snapshot` (its domain). macOSWorld's is its folder. */
          category?: string;
          /** @description Answer the mapping (200) without creating the task. */
          dry_run?: boolean;
          /**
           * @description The benchmark the task file comes from.
           * @enum {unknown}
           */
          format: 'osworld' | 'macosworld';
          /** @description The task id; default the file's id (macOSWorld: `-<language>` added but for `en`). */
          id?: string;
          /** @description How the file is read (its language, placeholders, partial credit). */
          options?: {
            /** @description OSWorld: `{CLIENT_PASSWORD}` (the VM user's sudo password), stored in the task's commands. */
            client_password?: string;
            /** @description macOSWorld: the environment language choosing `pre_command` (default: `language`). */
            env_language?: string;
            /** @description macOSWorld: the task language (default `en`). */
            language?: string;
            /** @description macOSWorld: grade with every `grading_command` and its score, not only the score-100 ones (the harness default). */
            partial_credit?: boolean;
            /** @description OSWorld: `{SCREEN_HEIGHT}` (default 1080). */
            screen_height?: number;
            /** @description OSWorld: `{SCREEN_WIDTH}` (default 1920). */
            screen_width?: number;
          };
          /** @description The task file, as JSON. */
          task: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A grouping for people; null when none. */
            category: string | null;
            /** @description Checks combined into a reward in [0, 1]. */
            grader: {
              /** @description The checks, evaluated in order (each is reported). */
              checks: (
                | {
                    /** @description A shell command line, or argv (program and arguments). */
                    command: string | string[];
                    /** @description What the command must do; by default, exit 0. */
                    expect?: {
                      /** @description The exit code the command must end with (default 0); `null` accepts any. */
                      exit_code?: number | null;
                      /** @description Compare the stdout and stderr expectations ignoring case. */
                      ignore_case?: boolean;
                      /** @description Standard error contains this (an array: every one of these). */
                      stderr_contains?: string | string[];
                      /** @description Standard error contains none of these. */
                      stderr_excludes?: string[];
                      /** @description Standard output contains this (an array: every one of these). */
                      stdout_contains?: string | string[];
                      /** @description Standard output, without its trailing newlines, is exactly this. */
                      stdout_equals?: string;
                      /** @description Standard output contains none of these. */
                      stdout_excludes?: string[];
                      /** @description Standard output matches this regular expression (RE2 syntax). */
                      stdout_matches?: string;
                    };
                    /** @description A label for people, shown with the check’s result. */
                    name?: string;
                    /** @description The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold. */
                    reward_from_stdout?: boolean;
                    /** @description The reward the check earns when it passes (default 1). */
                    score?: number;
                    /** @description The command's deadline in seconds (default 120; a timeout fails the check). */
                    timeout_s?: number;
                    /**
                     * @description `command`: run a command; its result decides.
                     * @enum {string}
                     */
                    type: 'command';
                    /** @description Its weight under `weighted` (default 1). */
                    weight?: number;
                  }
                | {
                    /** @description Pass when no node matches (a window was closed) instead. */
                    absent?: boolean;
                    /** @description A node of the window tree. */
                    match: {
                      /** @description The node's application (its window class on Linux). */
                      app?: string;
                      /** @description The node has (or has not) the keyboard focus. */
                      focused?: boolean;
                      /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                      ignore_case?: boolean;
                      /** @description The node is named exactly this. */
                      name?: string;
                      /** @description The node's name contains this. */
                      name_contains?: string;
                      /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                      name_matches?: string;
                      /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                      role?: string;
                    };
                    /** @description A label for people, shown with the check’s result. */
                    name?: string;
                    /** @description The reward the check earns when it passes (default 1). */
                    score?: number;
                    /**
                     * @description `window`: a node of the window tree.
                     * @enum {string}
                     */
                    type: 'window';
                    /** @description Its weight under `weighted` (default 1). */
                    weight?: number;
                  }
                | {
                    /** @description Its content contains this (an array: every one of these). */
                    contains?: string | string[];
                    /** @description Its content, without trailing newlines, is exactly this. */
                    equals?: string;
                    /** @description Its content contains none of these. */
                    excludes?: string[];
                    /** @description The file exists (default true); `false`: pass when it does not. */
                    exists?: boolean;
                    /** @description Compare `equals`, `contains` and `matches` ignoring case. */
                    ignore_case?: boolean;
                    /** @description The value `json_path` selects equals this JSON value. */
                    json_equals?: unknown;
                    /** @description The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several). */
                    json_path?: string;
                    /** @description Its content matches this regular expression (RE2 syntax). */
                    matches?: string;
                    /** @description A label for people, shown with the check’s result. */
                    name?: string;
                    /** @description The file (relative paths are in the VM user's home). */
                    path: string;
                    /** @description The reward the check earns when it passes (default 1). */
                    score?: number;
                    /**
                     * @description `file`: a file in the VM.
                     * @enum {string}
                     */
                    type: 'file';
                    /** @description Its weight under `weighted` (default 1). */
                    weight?: number;
                  }
              )[];
              /**
               * @description `all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.
               * @enum {unknown}
               */
              combine?: 'all' | 'any' | 'weighted';
              /** @description Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`). */
              delay_s?: number;
            };
            /** @description The task id it would get. */
            id: string;
            /** @description What the agent is asked to do. */
            instruction: string;
            /** @description Setup steps, run in order; the first that fails stops the setup. */
            setup: (
              | {
                  /** @description An uploaded blob of the account (`POST /v1/blobs`), by its id. */
                  blob?: string;
                  /** @description Make the file executable (`chmod +x`). */
                  executable?: boolean;
                  /** @description Where to write it in the VM (relative paths are in the VM user's home); parents are created. */
                  path: string;
                  /** @description The SHA-256 the bytes must have (the file is removed and the step fails otherwise). */
                  sha256?: string;
                  /** @description The step's deadline in seconds (default 600); the whole setup's deadline bounds it too. */
                  timeout_s?: number;
                  /**
                   * @description `download`: put a URL or an uploaded blob into the VM.
                   * @enum {string}
                   */
                  type: 'download';
                  /** @description An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in. */
                  url?: string;
                }
              | {
                  /** @description A shell command line, or argv (program and arguments). */
                  command: string | string[];
                  /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                  timeout_s?: number;
                  /**
                   * @description `launch`: start an app in the desktop session and wait for its window.
                   * @enum {string}
                   */
                  type: 'launch';
                  /** @description The window to wait for; default: any new top-level window. `false` returns once started. */
                  wait_for?:
                    | {
                        /** @description The node's application (its window class on Linux). */
                        app?: string;
                        /** @description The node has (or has not) the keyboard focus. */
                        focused?: boolean;
                        /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                        ignore_case?: boolean;
                        /** @description The node is named exactly this. */
                        name?: string;
                        /** @description The node's name contains this. */
                        name_contains?: string;
                        /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                        name_matches?: string;
                        /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                        role?: string;
                      }
                    | false;
                }
              | {
                  /** @description The file (relative paths are in the VM user's home), or a URL. */
                  path: string;
                  /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                  timeout_s?: number;
                  /**
                   * @description `open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).
                   * @enum {string}
                   */
                  type: 'open';
                  /** @description The window to wait for; default: a window whose name contains the file's name. `false` does not wait. */
                  wait_for?:
                    | {
                        /** @description The node's application (its window class on Linux). */
                        app?: string;
                        /** @description The node has (or has not) the keyboard focus. */
                        focused?: boolean;
                        /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                        ignore_case?: boolean;
                        /** @description The node is named exactly this. */
                        name?: string;
                        /** @description The node's name contains this. */
                        name_contains?: string;
                        /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                        name_matches?: string;
                        /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                        role?: string;
                      }
                    | false;
                }
              | {
                  /** @description Run it again until `expect` holds, at most this many times (default 1), within the deadline. */
                  attempts?: number;
                  /** @description A shell command line, or argv (program and arguments). */
                  command: string | string[];
                  /** @description When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`). */
                  continue_on_failure?: boolean;
                  /** @description What the command must do; by default, exit 0. */
                  expect?: {
                    /** @description The exit code the command must end with (default 0); `null` accepts any. */
                    exit_code?: number | null;
                    /** @description Compare the stdout and stderr expectations ignoring case. */
                    ignore_case?: boolean;
                    /** @description Standard error contains this (an array: every one of these). */
                    stderr_contains?: string | string[];
                    /** @description Standard error contains none of these. */
                    stderr_excludes?: string[];
                    /** @description Standard output contains this (an array: every one of these). */
                    stdout_contains?: string | string[];
                    /** @description Standard output, without its trailing newlines, is exactly this. */
                    stdout_equals?: string;
                    /** @description Standard output contains none of these. */
                    stdout_excludes?: string[];
                    /** @description Standard output matches this regular expression (RE2 syntax). */
                    stdout_matches?: string;
                  };
                  /** @description Pause between attempts (default 500). */
                  interval_ms?: number;
                  /** @description The step's deadline in seconds (default 120); the whole setup's deadline bounds it too. */
                  timeout_s?: number;
                  /**
                   * @description `command`: run a command and check its result.
                   * @enum {string}
                   */
                  type: 'command';
                }
              | {
                  /** @description How long. */
                  seconds: number;
                  /**
                   * @description `sleep`: wait.
                   * @enum {string}
                   */
                  type: 'sleep';
                }
            )[];
          };
        };
      };
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Application state captured at save, for graders. */
            app_state: {
              [key: string]: unknown;
            } | null;
            /** @description A grouping for people (e.g. `browser`, `office`); null when none. */
            category: string | null;
            /** @description When the task was created. */
            created_at: string | null;
            /** @description A shell script whose exit code 0 means success (reward 1), or a grader of checks (docs/evaluation.md). */
            grader:
              | (
                  | string
                  | {
                      /** @description The checks, evaluated in order (each is reported). */
                      checks: (
                        | {
                            /** @description A shell command line, or argv (program and arguments). */
                            command: string | string[];
                            /** @description What the command must do; by default, exit 0. */
                            expect?: {
                              /** @description The exit code the command must end with (default 0); `null` accepts any. */
                              exit_code?: number | null;
                              /** @description Compare the stdout and stderr expectations ignoring case. */
                              ignore_case?: boolean;
                              /** @description Standard error contains this (an array: every one of these). */
                              stderr_contains?: string | string[];
                              /** @description Standard error contains none of these. */
                              stderr_excludes?: string[];
                              /** @description Standard output contains this (an array: every one of these). */
                              stdout_contains?: string | string[];
                              /** @description Standard output, without its trailing newlines, is exactly this. */
                              stdout_equals?: string;
                              /** @description Standard output contains none of these. */
                              stdout_excludes?: string[];
                              /** @description Standard output matches this regular expression (RE2 syntax). */
                              stdout_matches?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold. */
                            reward_from_stdout?: boolean;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /** @description The command's deadline in seconds (default 120; a timeout fails the check). */
                            timeout_s?: number;
                            /**
                             * @description `command`: run a command; its result decides.
                             * @enum {string}
                             */
                            type: 'command';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Pass when no node matches (a window was closed) instead. */
                            absent?: boolean;
                            /** @description A node of the window tree. */
                            match: {
                              /** @description The node's application (its window class on Linux). */
                              app?: string;
                              /** @description The node has (or has not) the keyboard focus. */
                              focused?: boolean;
                              /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                              ignore_case?: boolean;
                              /** @description The node is named exactly this. */
                              name?: string;
                              /** @description The node's name contains this. */
                              name_contains?: string;
                              /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                              name_matches?: string;
                              /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                              role?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `window`: a node of the window tree.
                             * @enum {string}
                             */
                            type: 'window';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Its content contains this (an array: every one of these). */
                            contains?: string | string[];
                            /** @description Its content, without trailing newlines, is exactly this. */
                            equals?: string;
                            /** @description Its content contains none of these. */
                            excludes?: string[];
                            /** @description The file exists (default true); `false`: pass when it does not. */
                            exists?: boolean;
                            /** @description Compare `equals`, `contains` and `matches` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The value `json_path` selects equals this JSON value. */
                            json_equals?: unknown;
                            /** @description The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several). */
                            json_path?: string;
                            /** @description Its content matches this regular expression (RE2 syntax). */
                            matches?: string;
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The file (relative paths are in the VM user's home). */
                            path: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `file`: a file in the VM.
                             * @enum {string}
                             */
                            type: 'file';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                      )[];
                      /**
                       * @description `all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.
                       * @enum {unknown}
                       */
                      combine?: 'all' | 'any' | 'weighted';
                      /** @description Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`). */
                      delay_s?: number;
                    }
                )
              | null;
            /** @description The task has a grader (a replay reports a reward). */
            has_grader: boolean;
            /** @description The screen recording (MP4) of the session is finalized. */
            has_recording: boolean;
            /** @description The task id (the Task resource's name). */
            id: string;
            /** @description What the demonstrator was asked to do. */
            instruction: string;
            /** @description `recording`, `saved`, `finalizing` (recording being closed), `ready` or `failed`; null before any. */
            phase: string | null;
            /** @description Where to download the MP4 recording; null until finalized. */
            recording_url: string | null;
            /** @description Setup steps run after the setup script (docs/evaluation.md); null when none. */
            setup:
              | (
                  | {
                      /** @description An uploaded blob of the account (`POST /v1/blobs`), by its id. */
                      blob?: string;
                      /** @description Make the file executable (`chmod +x`). */
                      executable?: boolean;
                      /** @description Where to write it in the VM (relative paths are in the VM user's home); parents are created. */
                      path: string;
                      /** @description The SHA-256 the bytes must have (the file is removed and the step fails otherwise). */
                      sha256?: string;
                      /** @description The step's deadline in seconds (default 600); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `download`: put a URL or an uploaded blob into the VM.
                       * @enum {string}
                       */
                      type: 'download';
                      /** @description An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in. */
                      url?: string;
                    }
                  | {
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `launch`: start an app in the desktop session and wait for its window.
                       * @enum {string}
                       */
                      type: 'launch';
                      /** @description The window to wait for; default: any new top-level window. `false` returns once started. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description The file (relative paths are in the VM user's home), or a URL. */
                      path: string;
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).
                       * @enum {string}
                       */
                      type: 'open';
                      /** @description The window to wait for; default: a window whose name contains the file's name. `false` does not wait. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description Run it again until `expect` holds, at most this many times (default 1), within the deadline. */
                      attempts?: number;
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`). */
                      continue_on_failure?: boolean;
                      /** @description What the command must do; by default, exit 0. */
                      expect?: {
                        /** @description The exit code the command must end with (default 0); `null` accepts any. */
                        exit_code?: number | null;
                        /** @description Compare the stdout and stderr expectations ignoring case. */
                        ignore_case?: boolean;
                        /** @description Standard error contains this (an array: every one of these). */
                        stderr_contains?: string | string[];
                        /** @description Standard error contains none of these. */
                        stderr_excludes?: string[];
                        /** @description Standard output contains this (an array: every one of these). */
                        stdout_contains?: string | string[];
                        /** @description Standard output, without its trailing newlines, is exactly this. */
                        stdout_equals?: string;
                        /** @description Standard output contains none of these. */
                        stdout_excludes?: string[];
                        /** @description Standard output matches this regular expression (RE2 syntax). */
                        stdout_matches?: string;
                      };
                      /** @description Pause between attempts (default 500). */
                      interval_ms?: number;
                      /** @description The step's deadline in seconds (default 120); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `command`: run a command and check its result.
                       * @enum {string}
                       */
                      type: 'command';
                    }
                  | {
                      /** @description How long. */
                      seconds: number;
                      /**
                       * @description `sleep`: wait.
                       * @enum {string}
                       */
                      type: 'sleep';
                    }
                )[]
              | null;
            /** @description Shell script run before recording and before a replay. */
            setup_script: string | null;
            /** @description Recorded actions in the trajectory. */
            step_count: number;
            /** @description The recorded actions, in order. */
            steps: {
              /** @description The call's arguments as the API received them. */
              args: {
                [key: string]: unknown;
              };
              /** @description When the action ran (RFC 3339). */
              at: string;
              /** @description The tool called: the API operation (e.g. `click`, `type_text`). */
              function: string;
              /** @description Position of the step in the trajectory, from 0. */
              index: number;
              /** @description Where to download the PNG observed after the step; null if none. */
              screenshot_url: string | null;
            }[];
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getReplay: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The replay id, as the replay start answered it (^rp-[0-9a-f]{32}$). */
        replayID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description When the replay was started. */
            created_at: string | null;
            /** @description Each check of the grader and how it went, once completed; null without a grader. */
            grade: {
              /** @description Each check, in order. */
              checks: {
                /** @description `command`: the exit code. */
                exit_code?: number;
                /** @description Position of the check, from 0. */
                index: number;
                /** @description Why it passed or failed, for people. */
                message: string;
                /** @description The check’s label, if it has one. */
                name?: string;
                /** @description Whether it passed. */
                passed: boolean;
                /** @description What it earned (0 to 1). */
                reward: number;
                /** @description `command`: the end of its stdout (at most 2 KiB). */
                stdout?: string;
                /** @description The check kind. */
                type: string;
                /** @description Its weight (under `weighted`). */
                weight: number;
              }[];
              /**
               * @description How the checks were combined.
               * @enum {unknown}
               */
              combine: 'all' | 'any' | 'weighted';
              /** @description How long grading took. */
              duration_ms: number;
              /** @description The reward, in [0, 1]. */
              reward: number;
            } | null;
            /** @description The replay id (`rp-` and 32 hex digits). */
            id: string;
            /** @description Why the replay failed, for people. */
            message: string | null;
            /** @description The reservation whose Macs run it. */
            reservation_id: string;
            /** @description The grader's result (0 to 1) once completed; null without a grader. */
            reward: number | null;
            /** @description The sandbox the replay runs in; null until the reconciler names it. */
            sandbox_id: string | null;
            /** @description `pending`, `running`, `completed` or `failed`. */
            status: string;
            /** @description Recorded actions replayed so far. */
            steps_done: number;
            /** @description Recorded actions to replay. */
            steps_total: number | null;
            /** @description The task replayed. */
            task_id: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  listPlatforms: {
    parameters: {
      query?: {
        /** @description The reservation to report on (default: the key's, or the account's only active one). */
        reservation_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Every Mac model. */
            models: {
              /** @description Macs of this model free to reserve now. */
              available_minis: number;
              /** @description Price of one Mac-hour in cents (null: not for sale). */
              cents_per_hour: number | null;
              /** @description CPU cores of one Mac of this model. */
              cores: number;
              /** @description The warm VMs a Mac of this model holds, per layout. */
              layouts: {
                /** @description Warm VMs of a Mac in the split layout (two). */
                split: {
                  /** @description vCPUs of the warm VM. */
                  cpu: number;
                  /** @description The image's disk size, GiB. */
                  disk_gib: number;
                  /** @description The image it is cloned from. */
                  image: string;
                  /** @description Memory of the warm VM, GiB. */
                  memory_gib: number;
                }[];
                /** @description Warm VMs of a Mac in the whole layout (one). */
                whole: {
                  /** @description vCPUs of the warm VM. */
                  cpu: number;
                  /** @description The image's disk size, GiB. */
                  disk_gib: number;
                  /** @description The image it is cloned from. */
                  image: string;
                  /** @description Memory of the warm VM, GiB. */
                  memory_gib: number;
                }[];
              };
              /**
               * @description The Mac model.
               * @enum {unknown}
               */
              mac_model: 'm4' | 'm4-pro' | 'm5-pro';
              /** @description Memory of one Mac of this model, GiB. */
              memory_gib: number;
              /** @description Price of one pool sandbox per started hour (null: not for sale). */
              pool_cents_per_sandbox_hour: number | null;
            }[];
            /** @description The reservation named, the key's, or the account's only active one; null if none. */
            reservation: {
              /** @description The reservation id. */
              id: string;
              /** @description Images present on its Macs. */
              images: {
                /** @description Its disk size, GiB. */
                disk_gib: number;
                /** @description Image name. */
                name: string;
              }[];
              /**
               * @description Its Mac model.
               * @enum {unknown}
               */
              mac_model: 'm4' | 'm4-pro' | 'm5-pro';
              /** @description Its Macs. */
              minis: {
                /** @description CPU cores of the Mac. */
                cores: number;
                /** @description vCPUs not held by its sandboxes. */
                free_cpu: number;
                /** @description Memory not held by its sandboxes, GiB. */
                free_memory_gib: number;
                /** @description The Mac's address. */
                ip: string;
                /** @description At most this many in its layout. */
                max_sandboxes: number;
                /** @description Memory of the Mac, GiB. */
                memory_gib: number;
                /** @description Sandboxes holding a place on it. */
                sandboxes: number;
                /** @description Its warm VMs free to claim now. */
                warm_vms: {
                  /** @description vCPUs of the warm VM. */
                  cpu: number;
                  /** @description The image's disk size, GiB. */
                  disk_gib: number;
                  /** @description The image it is cloned from. */
                  image: string;
                  /** @description Memory of the warm VM, GiB. */
                  memory_gib: number;
                }[];
              }[];
              /**
               * @description Its layout in force.
               * @enum {unknown}
               */
              vm_layout: 'split' | 'whole';
            } | null;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  watchPlatforms: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description text/event-stream: `event: models` with `data:` the `models` array of /v1/platforms. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  listReservations: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description When the reservation was made.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it ends (start plus hours); null while pending.
             */
            end_at: string | null;
            /** @description Length in hours (edits that extend it included). */
            hours: number;
            /**
             * Format: uuid
             * @description The reservation id.
             */
            id: string;
            /**
             * @description The Mac model; its Rate gives the price per Mac-hour.
             * @enum {unknown}
             */
            mac_model: 'm4' | 'm4-pro' | 'm5-pro';
            /** @description Number of Macs reserved. */
            mini_count: number;
            /** @description Addresses of the Macs bound to it. */
            mini_ips: string[];
            /**
             * Format: date-time
             * @description When the reservation became active; null while pending.
             */
            start_at: string | null;
            /**
             * @description pending, active, completing (ended, sandboxes being removed), completed, cancelled.
             * @enum {unknown}
             */
            status: 'pending' | 'active' | 'completing' | 'completed' | 'cancelled';
            /** @description Price of the whole reservation in cents, at the rate of its purchase. */
            total_cents: number;
            /**
             * Format: uuid
             * @description The account's user id.
             */
            user_id: string;
            /**
             * @description split: two warm VMs per Mac; whole: one VM with the whole Mac. The layout in force.
             * @enum {unknown}
             */
            vm_layout: 'split' | 'whole';
          }[];
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  createReservation: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description Length in hours; at least 24. */
          hours: number;
          /**
           * @description The Mac model; its Rate gives the price per Mac-hour.
           * @default m4
           * @enum {unknown}
           */
          mac_model: 'm4' | 'm4-pro' | 'm5-pro';
          /**
           * @description Number of Macs.
           * @default 1
           */
          mini_count: number;
          /**
           * @description split: two warm VMs per Mac; whole: one VM with the whole Mac.
           * @default split
           * @enum {unknown}
           */
          vm_layout: 'split' | 'whole';
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description When the reservation was made.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it ends (start plus hours); null while pending.
             */
            end_at: string | null;
            /** @description Length in hours (edits that extend it included). */
            hours: number;
            /**
             * Format: uuid
             * @description The reservation id.
             */
            id: string;
            /** @description The reservation key, shown once: only its SHA-256 hash is stored. */
            key: string;
            /**
             * @description The Mac model; its Rate gives the price per Mac-hour.
             * @enum {unknown}
             */
            mac_model: 'm4' | 'm4-pro' | 'm5-pro';
            /** @description Number of Macs reserved. */
            mini_count: number;
            /** @description Addresses of the Macs bound to it. */
            mini_ips: string[];
            /**
             * Format: date-time
             * @description When the reservation became active; null while pending.
             */
            start_at: string | null;
            /**
             * @description pending, active, completing (ended, sandboxes being removed), completed, cancelled.
             * @enum {unknown}
             */
            status: 'pending' | 'active' | 'completing' | 'completed' | 'cancelled';
            /** @description Price of the whole reservation in cents, at the rate of its purchase. */
            total_cents: number;
            /**
             * Format: uuid
             * @description The account's user id.
             */
            user_id: string;
            /**
             * @description split: two warm VMs per Mac; whole: one VM with the whole Mac. The layout in force.
             * @enum {unknown}
             */
            vm_layout: 'split' | 'whole';
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getReservation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The reservation id. */
        reservationID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A reservation of Macs. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description When the reservation was made.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it ends (start plus hours); null while pending.
             */
            end_at: string | null;
            /** @description Length in hours (edits that extend it included). */
            hours: number;
            /**
             * Format: uuid
             * @description The reservation id.
             */
            id: string;
            /**
             * @description The Mac model; its Rate gives the price per Mac-hour.
             * @enum {unknown}
             */
            mac_model: 'm4' | 'm4-pro' | 'm5-pro';
            /** @description Number of Macs reserved. */
            mini_count: number;
            /** @description Addresses of the Macs bound to it. */
            mini_ips: string[];
            /**
             * Format: date-time
             * @description When the reservation became active; null while pending.
             */
            start_at: string | null;
            /**
             * @description pending, active, completing (ended, sandboxes being removed), completed, cancelled.
             * @enum {unknown}
             */
            status: 'pending' | 'active' | 'completing' | 'completed' | 'cancelled';
            /** @description Price of the whole reservation in cents, at the rate of its purchase. */
            total_cents: number;
            /**
             * Format: uuid
             * @description The account's user id.
             */
            user_id: string;
            /**
             * @description split: two warm VMs per Mac; whole: one VM with the whole Mac. The layout in force.
             * @enum {unknown}
             */
            vm_layout: 'split' | 'whole';
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  updateReservation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The reservation id. */
        reservationID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description Length in hours; at least 24. */
          hours?: number;
          /**
           * @description split: two warm VMs per Mac; whole: one VM with the whole Mac. Changing it needs every sandbox of the reservation deleted first.
           * @enum {unknown}
           */
          vm_layout?: 'split' | 'whole';
        };
      };
    };
    responses: {
      /** @description A reservation of Macs. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description When the reservation was made.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it ends (start plus hours); null while pending.
             */
            end_at: string | null;
            /** @description Length in hours (edits that extend it included). */
            hours: number;
            /**
             * Format: uuid
             * @description The reservation id.
             */
            id: string;
            /**
             * @description The Mac model; its Rate gives the price per Mac-hour.
             * @enum {unknown}
             */
            mac_model: 'm4' | 'm4-pro' | 'm5-pro';
            /** @description Number of Macs reserved. */
            mini_count: number;
            /** @description Addresses of the Macs bound to it. */
            mini_ips: string[];
            /**
             * Format: date-time
             * @description When the reservation became active; null while pending.
             */
            start_at: string | null;
            /**
             * @description pending, active, completing (ended, sandboxes being removed), completed, cancelled.
             * @enum {unknown}
             */
            status: 'pending' | 'active' | 'completing' | 'completed' | 'cancelled';
            /** @description Price of the whole reservation in cents, at the rate of its purchase. */
            total_cents: number;
            /**
             * Format: uuid
             * @description The account's user id.
             */
            user_id: string;
            /**
             * @description split: two warm VMs per Mac; whole: one VM with the whole Mac. The layout in force.
             * @enum {unknown}
             */
            vm_layout: 'split' | 'whole';
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getMyReservation: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A reservation of Macs. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description When the reservation was made.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it ends (start plus hours); null while pending.
             */
            end_at: string | null;
            /** @description Length in hours (edits that extend it included). */
            hours: number;
            /**
             * Format: uuid
             * @description The reservation id.
             */
            id: string;
            /**
             * @description The Mac model; its Rate gives the price per Mac-hour.
             * @enum {unknown}
             */
            mac_model: 'm4' | 'm4-pro' | 'm5-pro';
            /** @description Number of Macs reserved. */
            mini_count: number;
            /** @description Addresses of the Macs bound to it. */
            mini_ips: string[];
            /**
             * Format: date-time
             * @description When the reservation became active; null while pending.
             */
            start_at: string | null;
            /**
             * @description pending, active, completing (ended, sandboxes being removed), completed, cancelled.
             * @enum {unknown}
             */
            status: 'pending' | 'active' | 'completing' | 'completed' | 'cancelled';
            /** @description Price of the whole reservation in cents, at the rate of its purchase. */
            total_cents: number;
            /**
             * Format: uuid
             * @description The account's user id.
             */
            user_id: string;
            /**
             * @description split: two warm VMs per Mac; whole: one VM with the whole Mac. The layout in force.
             * @enum {unknown}
             */
            vm_layout: 'split' | 'whole';
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  listSandboxes: {
    parameters: {
      query?: {
        /** @description true: only pool sandboxes; false: only reserved ones. */
        pool?: boolean;
        /** @description Only the sandboxes of this reservation. */
        reservation_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @description warm or cold (see the create response); null until placed.
             * @enum {string|null}
             */
            boot: 'warm' | 'cold' | null;
            /** @description vCPUs of the VM; null until placed. */
            cpu: number | null;
            /**
             * Format: date-time
             * @description When the sandbox was created.
             */
            created_at: string;
            /** @description The egress policy in force on the VM; null until it runs, or when its Mac's driver enforces none. */
            egress: {
              /** @description Its rules, normalized (mode `allow`); empty otherwise. */
              allow: string[];
              /**
               * @description The mode in force.
               * @enum {unknown}
               */
              mode: 'none' | 'all' | 'allow';
            } | null;
            /**
             * Format: date-time
             * @description A pool sandbox is deleted at this time (24 hours after creation); null otherwise.
             */
            end_at: string | null;
            /** @description true: destroyed after about 2 minutes without activity (requests, SSH or VNC). */
            ephemeral: boolean;
            /** @description The sandbox this one was forked from (POST …/fork); null for any other sandbox. */
            fork_of: string | null;
            /** @description The Mac (Mini name) the sandbox runs on, as a create pins it with `host`; null until placed. */
            host: string | null;
            /**
             * Format: date-time
             * @description Last request, SSH or VNC activity on the sandbox; null before any.
             */
            last_active: string | null;
            /** @description Memory of the VM, GiB; null until placed. */
            memory_gib: number | null;
            /**
             * Format: date-time
             * @description When the sandbox was paused; null while it runs.
             */
            paused_at: string | null;
            /** @description true for a pool sandbox (outside reservations). */
            pool: boolean;
            /** @description The reservation the sandbox runs in; null for a pool sandbox. */
            reservation_id: string | null;
            /** @description The sandbox id (`sb-` and 32 hex digits). */
            sandbox_id: string;
            /** @description Path of the SSH WebSocket. */
            ssh_url: string;
            /**
             * @description pending (being placed), booting, running, paused (POST …/pause; its VM frozen), completing (its reservation or pool lifetime ended), failed, deleting.
             * @enum {unknown}
             */
            state: 'pending' | 'booting' | 'running' | 'paused' | 'completing' | 'failed' | 'deleting';
            /**
             * @description The platform: `macos`, the only one.
             * @enum {string}
             */
            type: 'macos';
            /** @description The VM's address on its Mac's private network. */
            vm_ip: string;
            /** @description Path of the VNC WebSocket, carrying a viewer token in `?token=`. */
            vnc_url: string;
          }[];
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  createSandbox: {
    parameters: {
      query?: never;
      header?: {
        /** @description At most 255 bytes. */
        'idempotency-key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description vCPUs: a whole number, at least 2. */
          cpu?: number;
          /** @description Must equal the image's disk size. */
          disk_gib?: number;
          /** @description Where the VM may connect to: `{"mode": "none" | "all" | "allow", "allow": [IPv4 addresses, CIDRs or domains]}`. Absent: its Mac's default (docs/api.md, Egress). */
          egress?: {
            /** @description With mode `allow`, its rules: IPv4 addresses or CIDRs (`203.0.113.0/24`) and domain names (`example.com`; `*.example.com` for its subdomains). */
            allow?: string[];
            /**
             * @description `none` (no connection leaves the VM), `all` (any public address), `allow` (only what `allow` names).
             * @enum {unknown}
             */
            mode: 'none' | 'all' | 'allow';
          };
          /** @description true: destroyed after about 2 minutes without activity. Default false. */
          ephemeral?: boolean;
          /** @description Pins the sandbox to one Mac of the reservation: its Mini name or IP. A Mac outside it answers 422 `host_not_reserved`; with `pool` it is 400. */
          host?: string;
          /**
           * @description With pool: the Mac model (default m4); its Rate gives the price.
           * @enum {unknown}
           */
          mac_model?: 'm4' | 'm4-pro' | 'm5-pro';
          /** @description GiB: a whole number, at least 4. */
          memory_gib?: number;
          /** @description true: a pool sandbox, outside reservations (account key only): paid per started hour from the credit, deleted 24 hours after creation. */
          pool?: boolean;
          /** @description The reservation to run in; optional when the key has exactly one active reservation. */
          reservation_id?: string;
          /** @description Snapshot version to restore. */
          snapshot?: string;
          /**
           * @description The platform: `macos` (the default, and the only one sandbay runs). Any other type answers 501 `sandbox_type_not_supported`.
           * @enum {string}
           */
          type?: 'macos';
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @description warm: a waiting VM was claimed; cold: a VM was cloned and booted for this request.
             * @enum {unknown}
             */
            boot: 'warm' | 'cold';
            /** @description vCPUs of the VM. */
            cpu: number;
            /**
             * Format: date-time
             * @description When the sandbox was created.
             */
            created_at: string;
            /** @description The egress policy in force on the VM; null until it runs, or when its Mac's driver enforces none. */
            egress: {
              /** @description Its rules, normalized (mode `allow`); empty otherwise. */
              allow: string[];
              /**
               * @description The mode in force.
               * @enum {unknown}
               */
              mode: 'none' | 'all' | 'allow';
            } | null;
            /**
             * Format: date-time
             * @description A pool sandbox is deleted at this time (24 hours after creation); null otherwise.
             */
            end_at: string | null;
            /** @description true: destroyed after about 2 minutes without activity (requests, SSH or VNC). */
            ephemeral: boolean;
            /** @description The sandbox this one was forked from (POST …/fork); null for any other sandbox. */
            fork_of: string | null;
            /** @description The Mac (Mini name) the sandbox runs on, as a create pins it with `host`; null until placed. */
            host: string | null;
            /** @description Memory of the VM, GiB. */
            memory_gib: number;
            /** @description true for a pool sandbox (outside reservations). */
            pool: boolean;
            /** @description The reservation the sandbox runs in; null for a pool sandbox. */
            reservation_id: string | null;
            /** @description The sandbox id (`sb-` and 32 hex digits). */
            sandbox_id: string;
            /** @description Path of the SSH WebSocket. */
            ssh_url: string;
            /**
             * @description The platform: `macos`, the only one.
             * @enum {string}
             */
            type: 'macos';
            /** @description The VM's address on its Mac's private network. */
            vm_ip: string;
            /** @description Path of the VNC WebSocket, carrying a viewer token in `?token=`. */
            vnc_url: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Default Response */
      501: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The refused action, e.g. `POST /v1/sandboxes`. */
            action: string;
            /**
             * @description The error code (docs/api.md).
             * @enum {string}
             */
            code: 'sandbox_type_not_supported';
            /** @description The use.computer gateway's sentence, `not supported on <platform> sandbox` (e.g. `not supported on iOS sandbox`, which its SDK turns into PlatformNotSupportedError). */
            error: string;
            /** @description What to do instead. */
            hint: string;
            /** @description A sentence for people. */
            message: string;
            /** @description The type asked for. */
            sandbox_type: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getSandbox: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @description warm or cold (see the create response); null until placed.
             * @enum {string|null}
             */
            boot: 'warm' | 'cold' | null;
            /** @description vCPUs of the VM; null until placed. */
            cpu: number | null;
            /**
             * Format: date-time
             * @description When the sandbox was created.
             */
            created_at: string;
            /** @description The egress policy in force on the VM; null until it runs, or when its Mac's driver enforces none. */
            egress: {
              /** @description Its rules, normalized (mode `allow`); empty otherwise. */
              allow: string[];
              /**
               * @description The mode in force.
               * @enum {unknown}
               */
              mode: 'none' | 'all' | 'allow';
            } | null;
            /**
             * Format: date-time
             * @description A pool sandbox is deleted at this time (24 hours after creation); null otherwise.
             */
            end_at: string | null;
            /** @description true: destroyed after about 2 minutes without activity (requests, SSH or VNC). */
            ephemeral: boolean;
            /** @description The sandbox this one was forked from (POST …/fork); null for any other sandbox. */
            fork_of: string | null;
            /** @description The Mac (Mini name) the sandbox runs on, as a create pins it with `host`; null until placed. */
            host: string | null;
            /**
             * Format: date-time
             * @description Last request, SSH or VNC activity on the sandbox; null before any.
             */
            last_active: string | null;
            /** @description Memory of the VM, GiB; null until placed. */
            memory_gib: number | null;
            /**
             * Format: date-time
             * @description When the sandbox was paused; null while it runs.
             */
            paused_at: string | null;
            /** @description true for a pool sandbox (outside reservations). */
            pool: boolean;
            /** @description The reservation the sandbox runs in; null for a pool sandbox. */
            reservation_id: string | null;
            /** @description The sandbox id (`sb-` and 32 hex digits). */
            sandbox_id: string;
            /** @description Path of the SSH WebSocket. */
            ssh_url: string;
            /**
             * @description pending (being placed), booting, running, paused (POST …/pause; its VM frozen), completing (its reservation or pool lifetime ended), failed, deleting.
             * @enum {unknown}
             */
            state: 'pending' | 'booting' | 'running' | 'paused' | 'completing' | 'failed' | 'deleting';
            /**
             * @description The platform: `macos`, the only one.
             * @enum {string}
             */
            type: 'macos';
            /** @description The VM's address on its Mac's private network. */
            vm_ip: string;
            /** @description Path of the VNC WebSocket, carrying a viewer token in `?token=`. */
            vnc_url: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  deleteSandbox: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  act: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    /** @description Native `{action: {type, …}}`, Anthropic computer tool input `{action: "left_click", coordinate}` or OpenAI computer_call action `{type: "click", x, y}`, told apart by shape. */
    requestBody: {
      content: {
        'application/json':
          | {
              /** @description One input action: `type` and the fields of that action's own endpoint. */
              action:
                | {
                    /**
                     * @description Mouse button.
                     * @default left
                     * @enum {unknown}
                     */
                    button?: 'left' | 'right';
                    /**
                     * @description true: a double click.
                     * @default false
                     */
                    double?: boolean;
                    /**
                     * @description The action.
                     * @enum {string}
                     */
                    type: 'click';
                    /** @description Screen x, in points from the left edge. */
                    x: number;
                    /** @description Screen y, in points from the top edge. */
                    y: number;
                  }
                | {
                    /**
                     * @description The action.
                     * @enum {string}
                     */
                    type: 'move';
                    /** @description Screen x, in points from the left edge. */
                    x: number;
                    /** @description Screen y, in points from the top edge. */
                    y: number;
                  }
                | {
                    /**
                     * @description Mouse button.
                     * @default left
                     * @enum {unknown}
                     */
                    button?: 'left' | 'right' | 'middle';
                    /** @description Screen x where the button is released. */
                    endX: number;
                    /** @description Screen y where the button is released. */
                    endY: number;
                    /** @description Screen x where the drag starts. */
                    startX: number;
                    /** @description Screen y where the drag starts. */
                    startY: number;
                    /**
                     * @description The action.
                     * @enum {string}
                     */
                    type: 'drag';
                  }
                | {
                    /**
                     * @description Wheel notches.
                     * @default 3
                     */
                    amount?: number;
                    /**
                     * @description Which way the content scrolls.
                     * @default down
                     * @enum {unknown}
                     */
                    direction?: 'up' | 'down' | 'left' | 'right';
                    /**
                     * @description The action.
                     * @enum {string}
                     */
                    type: 'scroll';
                    /** @description Screen x, in points from the left edge. */
                    x: number;
                    /** @description Screen y, in points from the top edge. */
                    y: number;
                  }
                | {
                    /** @description Milliseconds between keystrokes. */
                    delay?: number;
                    /** @description Text to type, as keystrokes. */
                    text: string;
                    /**
                     * @description The action.
                     * @enum {string}
                     */
                    type: 'type';
                  }
                | {
                    /** @description A key name, e.g. `return`, `a`, `f5`, `cmd` (docs/api.md, Keys). */
                    key: string;
                    /** @description Keys held down during the press. */
                    modifiers?: string[];
                    /**
                     * @description The action.
                     * @enum {string}
                     */
                    type: 'key';
                  }
                | {
                    /** @description Keys joined with `+`, e.g. `cmd+shift+4`. */
                    keys: string;
                    /**
                     * @description The action.
                     * @enum {string}
                     */
                    type: 'hotkey';
                  }
                | {
                    /**
                     * @description true: then paste it into the focused window (`cmd+v`, which is Control+V on Linux desktops).
                     * @default false
                     */
                    paste?: boolean;
                    /** @description Text to put on the sandbox's clipboard (PUT …/clipboard also takes images). */
                    text: string;
                    /**
                     * @description The action.
                     * @enum {string}
                     */
                    type: 'set_clipboard';
                  };
              /**
               * @description true: answer with a PNG of the screen after the action; false: with JSON.
               * @default true
               */
              screenshot_after?: boolean;
              /**
               * @description Milliseconds between the action and the screenshot (the screen settles).
               * @default 100
               */
              screenshot_delay_ms?: number;
            }
          | {
              /**
               * @description The action.
               * @enum {unknown}
               */
              action:
                | 'left_click'
                | 'right_click'
                | 'middle_click'
                | 'double_click'
                | 'triple_click'
                | 'left_click_drag'
                | 'left_mouse_down'
                | 'left_mouse_up'
                | 'mouse_move'
                | 'scroll'
                | 'type'
                | 'key'
                | 'hold_key'
                | 'wait'
                | 'screenshot'
                | 'cursor_position'
                | 'zoom';
              /** @description Clicks, moves, scroll, drag end: [x, y]. */
              coordinate?: number[];
              /** @description wait / hold_key: seconds. */
              duration?: number;
              /** @description zoom: [x0, y0, x1, y1]. */
              region?: number[];
              /** @description scroll: wheel notches. */
              scroll_amount?: number;
              /**
               * @description scroll: which way.
               * @enum {unknown}
               */
              scroll_direction?: 'up' | 'down' | 'left' | 'right';
              /** @description left_click_drag: where it starts, [x, y]. */
              start_coordinate?: number[];
              /** @description type: the text; key / hold_key: xdotool key names (`ctrl+s`, `Return`); clicks and scroll: modifiers held. */
              text?: string;
            }
          | ({
              /**
               * @description click: the button.
               * @enum {unknown}
               */
              button?: 'left' | 'right' | 'wheel' | 'back' | 'forward';
              /** @description keypress: the keys of one chord, e.g. ["CTRL", "S"]. */
              keys?: string[];
              /** @description wait: milliseconds. */
              ms?: number;
              /** @description drag: the points the pointer goes through. */
              path?: {
                /** @description x in screen pixels. */
                x: number;
                /** @description y in screen pixels. */
                y: number;
              }[];
              /** @description scroll: horizontal pixels. */
              scroll_x?: number;
              /** @description scroll: vertical pixels. */
              scroll_y?: number;
              /** @description type: the text. */
              text?: string;
              /**
               * @description The action.
               * @enum {unknown}
               */
              type:
                | 'click'
                | 'double_click'
                | 'drag'
                | 'move'
                | 'scroll'
                | 'type'
                | 'keypress'
                | 'wait'
                | 'screenshot';
              /** @description click, double_click, move, scroll: x in screen pixels. */
              x?: number;
              /** @description click, double_click, move, scroll: y in screen pixels. */
              y?: number;
            } & {
              [key: string]: unknown;
            });
      };
    };
    responses: {
      /** @description Native: PNG after the action, or JSON when screenshot_after is false. Anthropic: the tool_result content. OpenAI: the computer_call_output output. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json':
            | {
                /** @description The action performed. */
                action: string;
                /** @description Always true: failures answer with an error status instead. */
                ok: boolean;
              }
            | {
                /** @description The tool_result content blocks. */
                content: (
                  | {
                      /** @description The image. */
                      source: {
                        /** @description The PNG, base64. */
                        data: string;
                        /**
                         * @description The image format.
                         * @enum {string}
                         */
                        media_type: 'image/png';
                        /**
                         * @description The encoding of data.
                         * @enum {string}
                         */
                        type: 'base64';
                      };
                      /**
                       * @description A screenshot block.
                       * @enum {string}
                       */
                      type: 'image';
                    }
                  | {
                      /** @description e.g. the typed text or an error. */
                      text: string;
                      /**
                       * @description A text block.
                       * @enum {string}
                       */
                      type: 'text';
                    }
                )[];
                /** @description cursor_position: where the pointer is. */
                coordinate?: number[];
              }
            | {
                /** @description The screenshot as a `data:image/png;base64,` URL. */
                image_url: string;
                /**
                 * @description The output kind.
                 * @enum {string}
                 */
                type: 'computer_screenshot';
              };
          'image/png': string;
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getClipboard: {
    parameters: {
      query?: {
        /** @description Which representation to answer with when the clipboard offers both (default text; an image copied from a browser often carries text too). */
        type?: 'text' | 'image';
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description What the sandbox's clipboard holds. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json':
            | {
                /** @description The text; at most 1 MiB of UTF-8 (413 `clipboard_too_large` past it). */
                text: string;
                /**
                 * @description Text (UTF-8).
                 * @enum {string}
                 */
                type: 'text';
              }
            | {
                /** @description The PNG's bytes in base64; at most 8 MiB decoded (413 `clipboard_too_large` past it). */
                data: string;
                /**
                 * @description Always image/png.
                 * @enum {string}
                 */
                mime_type: 'image/png';
                /**
                 * @description An image.
                 * @enum {string}
                 */
                type: 'image';
              }
            | {
                /**
                 * @description Nothing is on the clipboard (or nothing text or PNG).
                 * @enum {string}
                 */
                type: 'empty';
              };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      501: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  setClipboard: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    /** @description What to put on the clipboard: text, or a PNG image. */
    requestBody: {
      content: {
        'application/json':
          | {
              /** @description The text; at most 1 MiB of UTF-8 (413 `clipboard_too_large` past it). */
              text: string;
              /**
               * @description Text (UTF-8).
               * @enum {string}
               */
              type: 'text';
            }
          | {
              /** @description The PNG's bytes in base64; at most 8 MiB decoded (413 `clipboard_too_large` past it). */
              data: string;
              /**
               * @description Always image/png.
               * @enum {string}
               */
              mime_type: 'image/png';
              /**
               * @description An image.
               * @enum {string}
               */
              type: 'image';
            };
      };
    };
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      501: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getCollection: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @description `setup` while the setup script runs (nothing recorded), then `recording`.
             * @enum {unknown}
             */
            phase: 'setup' | 'recording';
            /** @description The sandbox's MP4 recording of the collection. */
            recording_id: string | null;
            /** @description When recording started; null during setup. */
            recording_started_at: string | null;
            /** @description The sandbox the task is being collected on. */
            sandbox_id: string;
            /**
             * Format: date-time
             * @description When the collection started.
             */
            started_at: string;
            /** @description Steps recorded so far. */
            step_count: number;
            /** @description The task being recorded. */
            task_id: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  startCollection: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description Run the task's setup script first (unrecorded).
           * @default true
           */
          run_setup?: boolean;
          /** @description The task to record (it must have no steps yet). */
          task_id: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @description `setup` while the setup script runs (nothing recorded), then `recording`.
             * @enum {unknown}
             */
            phase: 'setup' | 'recording';
            /** @description The sandbox's MP4 recording of the collection. */
            recording_id: string | null;
            /** @description When recording started; null during setup. */
            recording_started_at: string | null;
            /** @description The sandbox the task is being collected on. */
            sandbox_id: string;
            /**
             * Format: date-time
             * @description When the collection started.
             */
            started_at: string;
            /** @description Steps recorded so far. */
            step_count: number;
            /** @description The task being recorded. */
            task_id: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  stopCollection: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Application state captured at save, for graders. */
            app_state: {
              [key: string]: unknown;
            } | null;
            /** @description A grouping for people (e.g. `browser`, `office`); null when none. */
            category: string | null;
            /** @description When the task was created. */
            created_at: string | null;
            /** @description A shell script whose exit code 0 means success (reward 1), or a grader of checks (docs/evaluation.md). */
            grader:
              | (
                  | string
                  | {
                      /** @description The checks, evaluated in order (each is reported). */
                      checks: (
                        | {
                            /** @description A shell command line, or argv (program and arguments). */
                            command: string | string[];
                            /** @description What the command must do; by default, exit 0. */
                            expect?: {
                              /** @description The exit code the command must end with (default 0); `null` accepts any. */
                              exit_code?: number | null;
                              /** @description Compare the stdout and stderr expectations ignoring case. */
                              ignore_case?: boolean;
                              /** @description Standard error contains this (an array: every one of these). */
                              stderr_contains?: string | string[];
                              /** @description Standard error contains none of these. */
                              stderr_excludes?: string[];
                              /** @description Standard output contains this (an array: every one of these). */
                              stdout_contains?: string | string[];
                              /** @description Standard output, without its trailing newlines, is exactly this. */
                              stdout_equals?: string;
                              /** @description Standard output contains none of these. */
                              stdout_excludes?: string[];
                              /** @description Standard output matches this regular expression (RE2 syntax). */
                              stdout_matches?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold. */
                            reward_from_stdout?: boolean;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /** @description The command's deadline in seconds (default 120; a timeout fails the check). */
                            timeout_s?: number;
                            /**
                             * @description `command`: run a command; its result decides.
                             * @enum {string}
                             */
                            type: 'command';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Pass when no node matches (a window was closed) instead. */
                            absent?: boolean;
                            /** @description A node of the window tree. */
                            match: {
                              /** @description The node's application (its window class on Linux). */
                              app?: string;
                              /** @description The node has (or has not) the keyboard focus. */
                              focused?: boolean;
                              /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                              ignore_case?: boolean;
                              /** @description The node is named exactly this. */
                              name?: string;
                              /** @description The node's name contains this. */
                              name_contains?: string;
                              /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                              name_matches?: string;
                              /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                              role?: string;
                            };
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `window`: a node of the window tree.
                             * @enum {string}
                             */
                            type: 'window';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                        | {
                            /** @description Its content contains this (an array: every one of these). */
                            contains?: string | string[];
                            /** @description Its content, without trailing newlines, is exactly this. */
                            equals?: string;
                            /** @description Its content contains none of these. */
                            excludes?: string[];
                            /** @description The file exists (default true); `false`: pass when it does not. */
                            exists?: boolean;
                            /** @description Compare `equals`, `contains` and `matches` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The value `json_path` selects equals this JSON value. */
                            json_equals?: unknown;
                            /** @description The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several). */
                            json_path?: string;
                            /** @description Its content matches this regular expression (RE2 syntax). */
                            matches?: string;
                            /** @description A label for people, shown with the check’s result. */
                            name?: string;
                            /** @description The file (relative paths are in the VM user's home). */
                            path: string;
                            /** @description The reward the check earns when it passes (default 1). */
                            score?: number;
                            /**
                             * @description `file`: a file in the VM.
                             * @enum {string}
                             */
                            type: 'file';
                            /** @description Its weight under `weighted` (default 1). */
                            weight?: number;
                          }
                      )[];
                      /**
                       * @description `all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.
                       * @enum {unknown}
                       */
                      combine?: 'all' | 'any' | 'weighted';
                      /** @description Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`). */
                      delay_s?: number;
                    }
                )
              | null;
            /** @description The task has a grader (a replay reports a reward). */
            has_grader: boolean;
            /** @description The screen recording (MP4) of the session is finalized. */
            has_recording: boolean;
            /** @description The task id (the Task resource's name). */
            id: string;
            /** @description What the demonstrator was asked to do. */
            instruction: string;
            /** @description `recording`, `saved`, `finalizing` (recording being closed), `ready` or `failed`; null before any. */
            phase: string | null;
            /** @description Where to download the MP4 recording; null until finalized. */
            recording_url: string | null;
            /** @description Setup steps run after the setup script (docs/evaluation.md); null when none. */
            setup:
              | (
                  | {
                      /** @description An uploaded blob of the account (`POST /v1/blobs`), by its id. */
                      blob?: string;
                      /** @description Make the file executable (`chmod +x`). */
                      executable?: boolean;
                      /** @description Where to write it in the VM (relative paths are in the VM user's home); parents are created. */
                      path: string;
                      /** @description The SHA-256 the bytes must have (the file is removed and the step fails otherwise). */
                      sha256?: string;
                      /** @description The step's deadline in seconds (default 600); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `download`: put a URL or an uploaded blob into the VM.
                       * @enum {string}
                       */
                      type: 'download';
                      /** @description An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in. */
                      url?: string;
                    }
                  | {
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `launch`: start an app in the desktop session and wait for its window.
                       * @enum {string}
                       */
                      type: 'launch';
                      /** @description The window to wait for; default: any new top-level window. `false` returns once started. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description The file (relative paths are in the VM user's home), or a URL. */
                      path: string;
                      /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).
                       * @enum {string}
                       */
                      type: 'open';
                      /** @description The window to wait for; default: a window whose name contains the file's name. `false` does not wait. */
                      wait_for?:
                        | {
                            /** @description The node's application (its window class on Linux). */
                            app?: string;
                            /** @description The node has (or has not) the keyboard focus. */
                            focused?: boolean;
                            /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                            ignore_case?: boolean;
                            /** @description The node is named exactly this. */
                            name?: string;
                            /** @description The node's name contains this. */
                            name_contains?: string;
                            /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                            name_matches?: string;
                            /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                            role?: string;
                          }
                        | false;
                    }
                  | {
                      /** @description Run it again until `expect` holds, at most this many times (default 1), within the deadline. */
                      attempts?: number;
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`). */
                      continue_on_failure?: boolean;
                      /** @description What the command must do; by default, exit 0. */
                      expect?: {
                        /** @description The exit code the command must end with (default 0); `null` accepts any. */
                        exit_code?: number | null;
                        /** @description Compare the stdout and stderr expectations ignoring case. */
                        ignore_case?: boolean;
                        /** @description Standard error contains this (an array: every one of these). */
                        stderr_contains?: string | string[];
                        /** @description Standard error contains none of these. */
                        stderr_excludes?: string[];
                        /** @description Standard output contains this (an array: every one of these). */
                        stdout_contains?: string | string[];
                        /** @description Standard output, without its trailing newlines, is exactly this. */
                        stdout_equals?: string;
                        /** @description Standard output contains none of these. */
                        stdout_excludes?: string[];
                        /** @description Standard output matches this regular expression (RE2 syntax). */
                        stdout_matches?: string;
                      };
                      /** @description Pause between attempts (default 500). */
                      interval_ms?: number;
                      /** @description The step's deadline in seconds (default 120); the whole setup's deadline bounds it too. */
                      timeout_s?: number;
                      /**
                       * @description `command`: run a command and check its result.
                       * @enum {string}
                       */
                      type: 'command';
                    }
                  | {
                      /** @description How long. */
                      seconds: number;
                      /**
                       * @description `sleep`: wait.
                       * @enum {string}
                       */
                      type: 'sleep';
                    }
                )[]
              | null;
            /** @description Shell script run before recording and before a replay. */
            setup_script: string | null;
            /** @description Recorded actions in the trajectory. */
            step_count: number;
            /** @description The recorded actions, in order. */
            steps: {
              /** @description The call's arguments as the API received them. */
              args: {
                [key: string]: unknown;
              };
              /** @description When the action ran (RFC 3339). */
              at: string;
              /** @description The tool called: the API operation (e.g. `click`, `type_text`). */
              function: string;
              /** @description Position of the step in the trajectory, from 0. */
              index: number;
              /** @description Where to download the PNG observed after the step; null if none. */
              screenshot_url: string | null;
            }[];
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  cuaCommand: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    /** @description One message of Cua's protocol. */
    requestBody: {
      content: {
        'application/json': {
          /** @description A Cua command (`screenshot`, `left_click`, …) or one of its aliases. */
          command: string;
          /** @description The command's parameters. */
          params?: {
            [key: string]: unknown;
          };
        } & {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description `data: {"success": true, …}` (or `false` with `error` and `code`): Cua's answer envelope. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description Default Response */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Cua's sentence: `Unknown command: X. Did you mean: …?` */
            detail?: string;
            /** @description A stable error code: `cua_unknown_command`, `invalid_request`, … */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  cuaCommands: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Alias → command. */
            aliases: {
              [key: string]: string;
            };
            /** @description Every command served, by name. */
            commands: {
              [key: string]: {
                /** @description Other names of it. */
                aliases?: string[];
                /** @description Its parameters. */
                params: {
                  /** @description Always null (defaults are in docs/api.md). */
                  default: null;
                  /** @description The parameter. */
                  name: string;
                  /** @description true when the command needs it. */
                  required: boolean;
                }[];
              };
            };
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  connectCua: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Switching Protocols: JSON messages follow. */
      101: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      426: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getDisplayInfo: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Screen height, in points. */
            height: number;
            /**
             * @description The sandbox's type, as use.computer's client reads it: `macos` (also on the linux driver, which stands in for a Mac).
             * @enum {string}
             */
            platform: 'macos';
            /** @description Pixels per point (2 on a Retina display, 1 on Linux). */
            scale: number;
            /** @description Screen width, in points. */
            width: number;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  listWindows: {
    parameters: {
      query?: {
        /** @description 1 or true: answer `{available, tree, error}`, with `available: false` instead of an error when the VM cannot give the tree. */
        best_effort?: '1' | 'true' | '0' | 'false';
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json':
            | ({
                /** @description The application it belongs to. */
                app?: string;
                /** @description Child nodes, same shape. */
                children?: unknown[];
                /** @description true for the focused window or element. */
                focused?: boolean;
                /** @description Height, in points. */
                height: number;
                /** @description Window id or accessibility path. */
                id?: string;
                /** @description Title or accessible name. */
                name: string;
                /** @description Process id of that application. */
                pid?: number;
                /** @description Accessibility role, e.g. `window`, `button`. */
                role: string;
                /** @description Width, in points. */
                width: number;
                /** @description Left edge, in points. */
                x: number;
                /** @description Top edge, in points. */
                y: number;
              } & {
                [key: string]: unknown;
              })[]
            | {
                /** @description true when the tree was read; false with `error` otherwise. */
                available: boolean;
                /** @description Why the tree is not available (`<code>: <message>`); empty when it is. */
                error: string;
                /** @description The windows, exactly as without `best_effort`; null when not available. */
                tree:
                  | ({
                      /** @description The application it belongs to. */
                      app?: string;
                      /** @description Child nodes, same shape. */
                      children?: unknown[];
                      /** @description true for the focused window or element. */
                      focused?: boolean;
                      /** @description Height, in points. */
                      height: number;
                      /** @description Window id or accessibility path. */
                      id?: string;
                      /** @description Title or accessible name. */
                      name: string;
                      /** @description Process id of that application. */
                      pid?: number;
                      /** @description Accessibility role, e.g. `window`, `button`. */
                      role: string;
                      /** @description Width, in points. */
                      width: number;
                      /** @description Left edge, in points. */
                      x: number;
                      /** @description Top edge, in points. */
                      y: number;
                    } & {
                      [key: string]: unknown;
                    })[]
                  | null;
              };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  finishEvaluationAttempt: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description What the agent says, for people. */
          message?: string;
          /**
           * @description `done` (default) or `gave_up`.
           * @enum {unknown}
           */
          outcome?: 'done' | 'gave_up';
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The attempt that will be graded. */
            attempt_id: string;
            /** @description Always true. */
            ok: boolean;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  execCommand: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description true runs under the in-VM control agent's session (the SDK's exec_ax).
           * @default false
           */
          ax: boolean;
          /** @description A shell command line, run by the VM user's shell. */
          command: string;
          /**
           * @description Seconds before the command is killed (return_code 124, timed_out true).
           * @default 120
           */
          timeout: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Exit status; 124 when the timeout killed it. */
            return_code: number;
            /** @description The command's standard error (UTF-8). */
            stderr: string;
            /** @description The command's standard output (UTF-8). */
            stdout: string;
            /** @description true when the timeout killed the command. */
            timed_out: boolean;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  execAxCommand: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description A shell command line, run by the VM user's shell. */
          command: string;
          /**
           * @description Seconds before the command is killed (return_code 124, timed_out true).
           * @default 120
           */
          timeout?: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Exit status; 124 when the timeout killed it. */
            return_code: number;
            /** @description The command's standard error (UTF-8). */
            stderr: string;
            /** @description The command's standard output (UTF-8). */
            stdout: string;
            /** @description true when the timeout killed the command. */
            timed_out: boolean;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  execStream: {
    parameters: {
      query: {
        /** @description Terminal columns (tty). Default 80. */
        cols?: number;
        /** @description The shell command line (as POST …/exec takes it). Repeated, an argv: each word is quoted, as kubectl sends one. */
        command: string;
        /** @description Terminal rows (tty). Default 24. */
        rows?: number;
        /** @description Keep the command's stdin open for channel-0 frames. Default false: it is closed at once. */
        stdin?: boolean;
        /** @description Seconds until the command is killed (exit 124). Default: none (it runs until it exits or the socket closes). */
        timeout?: number;
        /** @description Run under a pseudo-terminal (stderr joins stdout). Default false. */
        tty?: boolean;
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Switching Protocols: binary frames, one channel byte then data (0 stdin, 1 stdout, 2 stderr, 3 status JSON, 4 resize, 255 close); docs/api.md. */
      101: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      426: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      501: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  downloadFile: {
    parameters: {
      query: {
        /** @description Path inside the sandbox (relative: to the home). */
        path: string;
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file bytes. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/octet-stream': string;
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  uploadFile: {
    parameters: {
      query: {
        /** @description Path inside the sandbox (relative: to the home). */
        path: string;
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  downloadArchive: {
    parameters: {
      query: {
        /** @description Path inside the sandbox (relative: to the home). */
        path: string;
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A tar archive of the directory. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/x-tar': string;
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  uploadArchive: {
    parameters: {
      query: {
        /** @description Path inside the sandbox (relative: to the home). */
        path: string;
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  forkSandbox: {
    parameters: {
      query?: never;
      header?: {
        /** @description At most 255 bytes. */
        'idempotency-key'?: string;
      };
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description How many sandboxes to make from the source's disk (1–32, default 1); all fit on the reservation's free capacity or none is made.
           * @default 1
           */
          count?: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The new sandboxes, all running, each started from the source's disk (`fork_of` names it). */
            sandboxes: {
              /**
               * @description warm: a waiting VM was claimed; cold: a VM was cloned and booted for this request.
               * @enum {unknown}
               */
              boot: 'warm' | 'cold';
              /** @description vCPUs of the VM. */
              cpu: number;
              /**
               * Format: date-time
               * @description When the sandbox was created.
               */
              created_at: string;
              /** @description The egress policy in force on the VM; null until it runs, or when its Mac's driver enforces none. */
              egress: {
                /** @description Its rules, normalized (mode `allow`); empty otherwise. */
                allow: string[];
                /**
                 * @description The mode in force.
                 * @enum {unknown}
                 */
                mode: 'none' | 'all' | 'allow';
              } | null;
              /**
               * Format: date-time
               * @description A pool sandbox is deleted at this time (24 hours after creation); null otherwise.
               */
              end_at: string | null;
              /** @description true: destroyed after about 2 minutes without activity (requests, SSH or VNC). */
              ephemeral: boolean;
              /** @description The sandbox this one was forked from (POST …/fork); null for any other sandbox. */
              fork_of: string | null;
              /** @description The Mac (Mini name) the sandbox runs on, as a create pins it with `host`; null until placed. */
              host: string | null;
              /** @description Memory of the VM, GiB. */
              memory_gib: number;
              /** @description true for a pool sandbox (outside reservations). */
              pool: boolean;
              /** @description The reservation the sandbox runs in; null for a pool sandbox. */
              reservation_id: string | null;
              /** @description The sandbox id (`sb-` and 32 hex digits). */
              sandbox_id: string;
              /** @description Path of the SSH WebSocket. */
              ssh_url: string;
              /**
               * @description The platform: `macos`, the only one.
               * @enum {string}
               */
              type: 'macos';
              /** @description The VM's address on its Mac's private network. */
              vm_ip: string;
              /** @description Path of the VNC WebSocket, carrying a viewer token in `?token=`. */
              vnc_url: string;
            }[];
            /** @description The sandbox forked. */
            source_id: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  gradeSandbox: {
    parameters: {
      query?: never;
      header?: {
        /** @description At most 255 bytes. */
        'idempotency-key'?: string;
      };
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    /** @description Exactly one of `grader` and `task_id`. */
    requestBody: {
      content: {
        'application/json': {
          /** @description A shell script (exit 0 → reward 1) or a grader of checks. */
          grader?:
            | string
            | {
                /** @description The checks, evaluated in order (each is reported). */
                checks: (
                  | {
                      /** @description A shell command line, or argv (program and arguments). */
                      command: string | string[];
                      /** @description What the command must do; by default, exit 0. */
                      expect?: {
                        /** @description The exit code the command must end with (default 0); `null` accepts any. */
                        exit_code?: number | null;
                        /** @description Compare the stdout and stderr expectations ignoring case. */
                        ignore_case?: boolean;
                        /** @description Standard error contains this (an array: every one of these). */
                        stderr_contains?: string | string[];
                        /** @description Standard error contains none of these. */
                        stderr_excludes?: string[];
                        /** @description Standard output contains this (an array: every one of these). */
                        stdout_contains?: string | string[];
                        /** @description Standard output, without its trailing newlines, is exactly this. */
                        stdout_equals?: string;
                        /** @description Standard output contains none of these. */
                        stdout_excludes?: string[];
                        /** @description Standard output matches this regular expression (RE2 syntax). */
                        stdout_matches?: string;
                      };
                      /** @description A label for people, shown with the check’s result. */
                      name?: string;
                      /** @description The reward is the number on the last line of stdout (0 to 1) instead of `score`; `expect` must still hold. */
                      reward_from_stdout?: boolean;
                      /** @description The reward the check earns when it passes (default 1). */
                      score?: number;
                      /** @description The command's deadline in seconds (default 120; a timeout fails the check). */
                      timeout_s?: number;
                      /**
                       * @description `command`: run a command; its result decides.
                       * @enum {string}
                       */
                      type: 'command';
                      /** @description Its weight under `weighted` (default 1). */
                      weight?: number;
                    }
                  | {
                      /** @description Pass when no node matches (a window was closed) instead. */
                      absent?: boolean;
                      /** @description A node of the window tree. */
                      match: {
                        /** @description The node's application (its window class on Linux). */
                        app?: string;
                        /** @description The node has (or has not) the keyboard focus. */
                        focused?: boolean;
                        /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                        ignore_case?: boolean;
                        /** @description The node is named exactly this. */
                        name?: string;
                        /** @description The node's name contains this. */
                        name_contains?: string;
                        /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                        name_matches?: string;
                        /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                        role?: string;
                      };
                      /** @description A label for people, shown with the check’s result. */
                      name?: string;
                      /** @description The reward the check earns when it passes (default 1). */
                      score?: number;
                      /**
                       * @description `window`: a node of the window tree.
                       * @enum {string}
                       */
                      type: 'window';
                      /** @description Its weight under `weighted` (default 1). */
                      weight?: number;
                    }
                  | {
                      /** @description Its content contains this (an array: every one of these). */
                      contains?: string | string[];
                      /** @description Its content, without trailing newlines, is exactly this. */
                      equals?: string;
                      /** @description Its content contains none of these. */
                      excludes?: string[];
                      /** @description The file exists (default true); `false`: pass when it does not. */
                      exists?: boolean;
                      /** @description Compare `equals`, `contains` and `matches` ignoring case. */
                      ignore_case?: boolean;
                      /** @description The value `json_path` selects equals this JSON value. */
                      json_equals?: unknown;
                      /** @description The content is JSON and this JSONPath (`$.a.b[0]`) selects a value (the first, if several). */
                      json_path?: string;
                      /** @description Its content matches this regular expression (RE2 syntax). */
                      matches?: string;
                      /** @description A label for people, shown with the check’s result. */
                      name?: string;
                      /** @description The file (relative paths are in the VM user's home). */
                      path: string;
                      /** @description The reward the check earns when it passes (default 1). */
                      score?: number;
                      /**
                       * @description `file`: a file in the VM.
                       * @enum {string}
                       */
                      type: 'file';
                      /** @description Its weight under `weighted` (default 1). */
                      weight?: number;
                    }
                )[];
                /**
                 * @description `all` (default): the smallest reward; `any`: the largest; `weighted`: the mean weighted by `weight`.
                 * @enum {unknown}
                 */
                combine?: 'all' | 'any' | 'weighted';
                /** @description Wait this long before the checks, within the grading’s deadline (macOSWorld’s `before_grading_delay_seconds`). */
                delay_s?: number;
              };
          /** @description A task of the account (account key): its setup (script, then steps) or its grader. */
          task_id?: string;
          /** @description The deadline of the whole grading, in seconds (default 600, at most 3600). */
          timeout_s?: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Each check, in order. */
            checks: {
              /** @description `command`: the exit code. */
              exit_code?: number;
              /** @description Position of the check, from 0. */
              index: number;
              /** @description Why it passed or failed, for people. */
              message: string;
              /** @description The check’s label, if it has one. */
              name?: string;
              /** @description Whether it passed. */
              passed: boolean;
              /** @description What it earned (0 to 1). */
              reward: number;
              /** @description `command`: the end of its stdout (at most 2 KiB). */
              stdout?: string;
              /** @description The check kind. */
              type: string;
              /** @description Its weight (under `weighted`). */
              weight: number;
            }[];
            /**
             * @description How the checks were combined.
             * @enum {unknown}
             */
            combine: 'all' | 'any' | 'weighted';
            /** @description How long grading took. */
            duration_ms: number;
            /** @description The reward, in [0, 1]. */
            reward: number;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  keepaliveSandbox: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description The activity this heartbeat recorded.
             */
            last_active: string;
            /** @description The sandbox id (`sb-` and 32 hex digits). */
            sandbox_id: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  pressHotkey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description Keys joined with `+`, e.g. `cmd+shift+4`. */
          keys: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Always true: failures answer with an error status instead. */
            ok: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  pressKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description A key name, e.g. `return`, `a`, `f5`, `cmd` (docs/api.md, Keys). */
          key: string;
          /** @description Keys held down during the press. */
          modifiers?: string[];
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Always true: failures answer with an error status instead. */
            ok: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  typeText: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description Milliseconds between keystrokes. */
          delay?: number;
          /** @description Text to type, as keystrokes. */
          text: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Always true: failures answer with an error status instead. */
            ok: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  click: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description Mouse button.
           * @default left
           * @enum {unknown}
           */
          button?: 'left' | 'right';
          /**
           * @description true: a double click.
           * @default false
           */
          double?: boolean;
          /** @description Screen x, in points from the left edge. */
          x: number;
          /** @description Screen y, in points from the top edge. */
          y: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Always true: failures answer with an error status instead. */
            ok: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  drag: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description Mouse button.
           * @default left
           * @enum {unknown}
           */
          button?: 'left' | 'right' | 'middle';
          /** @description Screen x where the button is released. */
          endX: number;
          /** @description Screen y where the button is released. */
          endY: number;
          /** @description Screen x where the drag starts. */
          startX: number;
          /** @description Screen y where the drag starts. */
          startY: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Always true: failures answer with an error status instead. */
            ok: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  moveMouse: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description Screen x, in points from the left edge. */
          x: number;
          /** @description Screen y, in points from the top edge. */
          y: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Always true: failures answer with an error status instead. */
            ok: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getMousePosition: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Pointer x, in points. */
            x: number;
            /** @description Pointer y, in points. */
            y: number;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  scroll: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @description Wheel notches.
           * @default 3
           */
          amount?: number;
          /**
           * @description Which way the content scrolls.
           * @default down
           * @enum {unknown}
           */
          direction?: 'up' | 'down' | 'left' | 'right';
          /** @description Screen x, in points from the left edge. */
          x: number;
          /** @description Screen y, in points from the top edge. */
          y: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Always true: failures answer with an error status instead. */
            ok: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getSandboxNetwork: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Whether `allow` rules may name domains on this Mac (else addresses only). */
            domains: boolean;
            /** @description The egress policy in force on the VM; null until it runs, or when its Mac's driver enforces none. */
            egress: {
              /** @description Its rules, normalized (mode `allow`); empty otherwise. */
              allow: string[];
              /**
               * @description The mode in force.
               * @enum {unknown}
               */
              mode: 'none' | 'all' | 'allow';
            } | null;
            /** @description The modes the sandbox's Mac enforces (a PATCH asking for another answers 422 `egress_not_allowed`). */
            modes: ('none' | 'all' | 'allow')[];
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  setSandboxEgress: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description Where the VM may connect to: `{"mode": "none" | "all" | "allow", "allow": [IPv4 addresses, CIDRs or domains]}`. Absent: its Mac's default (docs/api.md, Egress). */
          egress: {
            /** @description With mode `allow`, its rules: IPv4 addresses or CIDRs (`203.0.113.0/24`) and domain names (`example.com`; `*.example.com` for its subdomains). */
            allow?: string[];
            /**
             * @description `none` (no connection leaves the VM), `all` (any public address), `allow` (only what `allow` names).
             * @enum {unknown}
             */
            mode: 'none' | 'all' | 'allow';
          };
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Whether `allow` rules may name domains on this Mac (else addresses only). */
            domains: boolean;
            /** @description The egress policy in force on the VM; null until it runs, or when its Mac's driver enforces none. */
            egress: {
              /** @description Its rules, normalized (mode `allow`); empty otherwise. */
              allow: string[];
              /**
               * @description The mode in force.
               * @enum {unknown}
               */
              mode: 'none' | 'all' | 'allow';
            } | null;
            /** @description The modes the sandbox's Mac enforces (a PATCH asking for another answers 422 `egress_not_allowed`). */
            modes: ('none' | 'all' | 'allow')[];
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  pauseSandbox: {
    parameters: {
      query?: never;
      header?: {
        /** @description At most 255 bytes. */
        'idempotency-key'?: string;
      };
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @description warm or cold (see the create response); null until placed.
             * @enum {string|null}
             */
            boot: 'warm' | 'cold' | null;
            /** @description vCPUs of the VM; null until placed. */
            cpu: number | null;
            /**
             * Format: date-time
             * @description When the sandbox was created.
             */
            created_at: string;
            /** @description The egress policy in force on the VM; null until it runs, or when its Mac's driver enforces none. */
            egress: {
              /** @description Its rules, normalized (mode `allow`); empty otherwise. */
              allow: string[];
              /**
               * @description The mode in force.
               * @enum {unknown}
               */
              mode: 'none' | 'all' | 'allow';
            } | null;
            /**
             * Format: date-time
             * @description A pool sandbox is deleted at this time (24 hours after creation); null otherwise.
             */
            end_at: string | null;
            /** @description true: destroyed after about 2 minutes without activity (requests, SSH or VNC). */
            ephemeral: boolean;
            /** @description The sandbox this one was forked from (POST …/fork); null for any other sandbox. */
            fork_of: string | null;
            /** @description The Mac (Mini name) the sandbox runs on, as a create pins it with `host`; null until placed. */
            host: string | null;
            /**
             * Format: date-time
             * @description Last request, SSH or VNC activity on the sandbox; null before any.
             */
            last_active: string | null;
            /** @description Memory of the VM, GiB; null until placed. */
            memory_gib: number | null;
            /**
             * Format: date-time
             * @description When the sandbox was paused; null while it runs.
             */
            paused_at: string | null;
            /** @description true for a pool sandbox (outside reservations). */
            pool: boolean;
            /** @description The reservation the sandbox runs in; null for a pool sandbox. */
            reservation_id: string | null;
            /** @description The sandbox id (`sb-` and 32 hex digits). */
            sandbox_id: string;
            /** @description Path of the SSH WebSocket. */
            ssh_url: string;
            /**
             * @description pending (being placed), booting, running, paused (POST …/pause; its VM frozen), completing (its reservation or pool lifetime ended), failed, deleting.
             * @enum {unknown}
             */
            state: 'pending' | 'booting' | 'running' | 'paused' | 'completing' | 'failed' | 'deleting';
            /**
             * @description The platform: `macos`, the only one.
             * @enum {string}
             */
            type: 'macos';
            /** @description The VM's address on its Mac's private network. */
            vm_ip: string;
            /** @description Path of the VNC WebSocket, carrying a viewer token in `?token=`. */
            vnc_url: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      501: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  forwardPort: {
    parameters: {
      query?: {
        /** @description A viewer token (POST …/viewer-token): authorizes the request and is kept in a cookie for the port; removed before forwarding. Or send the key as `Authorization: Bearer`. */
        sandbay_token?: string;
      };
      header?: never;
      path: {
        /** @description The path on the server in the sandbox. */
        '*': string;
        /** @description A TCP port of the sandbox, 1–65535 (400 `invalid_port` otherwise). */
        port: string;
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The guest server's answer, status, headers and body as it sent them (a redirect to its own root kept under the port's path; its cookies scoped to it). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      501: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  startRecording: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description A name for the recording (optional). */
          name?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Size of the MP4 file in bytes. */
            bytes?: number;
            /** @description Length of the recorded video in seconds. */
            duration_s?: number;
            /** @description The same as `bytes`; 0 until the MP4 is complete. */
            file_size: number;
            /** @description The name of the MP4 that `download` answers: `<id>.mp4`. */
            filename: string;
            /** @description The recording id (names it in stop, info, delete and download). */
            id: string;
            /** @description The name given at start (a generated one when none was given). */
            name: string;
            /** @description The same as `id` (the use.computer client reads either). */
            recording_id: string;
            /**
             * Format: date-time
             * @description When the recording started.
             */
            started_at: string;
            /**
             * @description `recording` while it runs, `stopped` once its MP4 is complete, `failed` if the capture broke.
             * @enum {unknown}
             */
            state: 'recording' | 'stopped' | 'failed';
            /**
             * @description The same as `state`.
             * @enum {unknown}
             */
            status: 'recording' | 'stopped' | 'failed';
            /**
             * Format: date-time
             * @description When it stopped; absent while it runs.
             */
            stopped_at?: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  stopRecording: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The recording to stop. */
          id: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Size of the MP4 file in bytes. */
            bytes?: number;
            /** @description Length of the recorded video in seconds. */
            duration_s?: number;
            /** @description The same as `bytes`; 0 until the MP4 is complete. */
            file_size: number;
            /** @description The name of the MP4 that `download` answers: `<id>.mp4`. */
            filename: string;
            /** @description The recording id (names it in stop, info, delete and download). */
            id: string;
            /** @description The name given at start (a generated one when none was given). */
            name: string;
            /** @description The same as `id` (the use.computer client reads either). */
            recording_id: string;
            /**
             * Format: date-time
             * @description When the recording started.
             */
            started_at: string;
            /**
             * @description `recording` while it runs, `stopped` once its MP4 is complete, `failed` if the capture broke.
             * @enum {unknown}
             */
            state: 'recording' | 'stopped' | 'failed';
            /**
             * @description The same as `state`.
             * @enum {unknown}
             */
            status: 'recording' | 'stopped' | 'failed';
            /**
             * Format: date-time
             * @description When it stopped; absent while it runs.
             */
            stopped_at?: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  listRecordings: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Size of the MP4 file in bytes. */
            bytes?: number;
            /** @description Length of the recorded video in seconds. */
            duration_s?: number;
            /** @description The same as `bytes`; 0 until the MP4 is complete. */
            file_size: number;
            /** @description The name of the MP4 that `download` answers: `<id>.mp4`. */
            filename: string;
            /** @description The recording id (names it in stop, info, delete and download). */
            id: string;
            /** @description The name given at start (a generated one when none was given). */
            name: string;
            /** @description The same as `id` (the use.computer client reads either). */
            recording_id: string;
            /**
             * Format: date-time
             * @description When the recording started.
             */
            started_at: string;
            /**
             * @description `recording` while it runs, `stopped` once its MP4 is complete, `failed` if the capture broke.
             * @enum {unknown}
             */
            state: 'recording' | 'stopped' | 'failed';
            /**
             * @description The same as `state`.
             * @enum {unknown}
             */
            status: 'recording' | 'stopped' | 'failed';
            /**
             * Format: date-time
             * @description When it stopped; absent while it runs.
             */
            stopped_at?: string;
          }[];
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getRecording: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The recording id, as `recording/start` returned it. */
        recordingID: string;
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Size of the MP4 file in bytes. */
            bytes?: number;
            /** @description Length of the recorded video in seconds. */
            duration_s?: number;
            /** @description The same as `bytes`; 0 until the MP4 is complete. */
            file_size: number;
            /** @description The name of the MP4 that `download` answers: `<id>.mp4`. */
            filename: string;
            /** @description The recording id (names it in stop, info, delete and download). */
            id: string;
            /** @description The name given at start (a generated one when none was given). */
            name: string;
            /** @description The same as `id` (the use.computer client reads either). */
            recording_id: string;
            /**
             * Format: date-time
             * @description When the recording started.
             */
            started_at: string;
            /**
             * @description `recording` while it runs, `stopped` once its MP4 is complete, `failed` if the capture broke.
             * @enum {unknown}
             */
            state: 'recording' | 'stopped' | 'failed';
            /**
             * @description The same as `state`.
             * @enum {unknown}
             */
            status: 'recording' | 'stopped' | 'failed';
            /**
             * Format: date-time
             * @description When it stopped; absent while it runs.
             */
            stopped_at?: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  deleteRecording: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The recording id, as `recording/start` returned it. */
        recordingID: string;
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  downloadRecording: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The recording id, as `recording/start` returned it. */
        recordingID: string;
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description MP4 video. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'video/mp4': string;
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  resumeSandbox: {
    parameters: {
      query?: never;
      header?: {
        /** @description At most 255 bytes. */
        'idempotency-key'?: string;
      };
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @description warm or cold (see the create response); null until placed.
             * @enum {string|null}
             */
            boot: 'warm' | 'cold' | null;
            /** @description vCPUs of the VM; null until placed. */
            cpu: number | null;
            /**
             * Format: date-time
             * @description When the sandbox was created.
             */
            created_at: string;
            /** @description The egress policy in force on the VM; null until it runs, or when its Mac's driver enforces none. */
            egress: {
              /** @description Its rules, normalized (mode `allow`); empty otherwise. */
              allow: string[];
              /**
               * @description The mode in force.
               * @enum {unknown}
               */
              mode: 'none' | 'all' | 'allow';
            } | null;
            /**
             * Format: date-time
             * @description A pool sandbox is deleted at this time (24 hours after creation); null otherwise.
             */
            end_at: string | null;
            /** @description true: destroyed after about 2 minutes without activity (requests, SSH or VNC). */
            ephemeral: boolean;
            /** @description The sandbox this one was forked from (POST …/fork); null for any other sandbox. */
            fork_of: string | null;
            /** @description The Mac (Mini name) the sandbox runs on, as a create pins it with `host`; null until placed. */
            host: string | null;
            /**
             * Format: date-time
             * @description Last request, SSH or VNC activity on the sandbox; null before any.
             */
            last_active: string | null;
            /** @description Memory of the VM, GiB; null until placed. */
            memory_gib: number | null;
            /**
             * Format: date-time
             * @description When the sandbox was paused; null while it runs.
             */
            paused_at: string | null;
            /** @description true for a pool sandbox (outside reservations). */
            pool: boolean;
            /** @description The reservation the sandbox runs in; null for a pool sandbox. */
            reservation_id: string | null;
            /** @description The sandbox id (`sb-` and 32 hex digits). */
            sandbox_id: string;
            /** @description Path of the SSH WebSocket. */
            ssh_url: string;
            /**
             * @description pending (being placed), booting, running, paused (POST …/pause; its VM frozen), completing (its reservation or pool lifetime ended), failed, deleting.
             * @enum {unknown}
             */
            state: 'pending' | 'booting' | 'running' | 'paused' | 'completing' | 'failed' | 'deleting';
            /**
             * @description The platform: `macos`, the only one.
             * @enum {string}
             */
            type: 'macos';
            /** @description The VM's address on its Mac's private network. */
            vm_ip: string;
            /** @description Path of the VNC WebSocket, carrying a viewer token in `?token=`. */
            vnc_url: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      501: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  takeScreenshot: {
    parameters: {
      query?: {
        /** @description true: the pointer is drawn in. */
        show_cursor?: boolean;
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description PNG image. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'image/png': string;
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  takeCompressedScreenshot: {
    parameters: {
      query?: {
        /** @description Image format. */
        format?: 'jpeg' | 'png';
        /** @description JPEG quality. */
        quality?: number;
        /** @description Scale factor in (0, 1]. */
        scale?: number;
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description JPEG or PNG image. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'image/jpeg': string;
          'image/png': string;
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  takeRegionScreenshot: {
    parameters: {
      query: {
        /** @description Height of the region, in points. */
        height: number;
        /** @description Width of the region, in points. */
        width: number;
        /** @description Left edge of the region, in points. */
        x: number;
        /** @description Top edge of the region, in points. */
        y: number;
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description PNG image. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'image/png': string;
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  setupSandbox: {
    parameters: {
      query?: never;
      header?: {
        /** @description At most 255 bytes. */
        'idempotency-key'?: string;
      };
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    /** @description Exactly one of `steps` and `task_id`. */
    requestBody: {
      content: {
        'application/json': {
          /** @description Setup steps, run in order; the first that fails stops the setup. */
          steps?: (
            | {
                /** @description An uploaded blob of the account (`POST /v1/blobs`), by its id. */
                blob?: string;
                /** @description Make the file executable (`chmod +x`). */
                executable?: boolean;
                /** @description Where to write it in the VM (relative paths are in the VM user's home); parents are created. */
                path: string;
                /** @description The SHA-256 the bytes must have (the file is removed and the step fails otherwise). */
                sha256?: string;
                /** @description The step's deadline in seconds (default 600); the whole setup's deadline bounds it too. */
                timeout_s?: number;
                /**
                 * @description `download`: put a URL or an uploaded blob into the VM.
                 * @enum {string}
                 */
                type: 'download';
                /** @description An `http` or `https` URL, fetched by the control plane (not the VM) and streamed in. */
                url?: string;
              }
            | {
                /** @description A shell command line, or argv (program and arguments). */
                command: string | string[];
                /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                timeout_s?: number;
                /**
                 * @description `launch`: start an app in the desktop session and wait for its window.
                 * @enum {string}
                 */
                type: 'launch';
                /** @description The window to wait for; default: any new top-level window. `false` returns once started. */
                wait_for?:
                  | {
                      /** @description The node's application (its window class on Linux). */
                      app?: string;
                      /** @description The node has (or has not) the keyboard focus. */
                      focused?: boolean;
                      /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                      ignore_case?: boolean;
                      /** @description The node is named exactly this. */
                      name?: string;
                      /** @description The node's name contains this. */
                      name_contains?: string;
                      /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                      name_matches?: string;
                      /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                      role?: string;
                    }
                  | false;
              }
            | {
                /** @description The file (relative paths are in the VM user's home), or a URL. */
                path: string;
                /** @description The step's deadline in seconds (default 60); the whole setup's deadline bounds it too. */
                timeout_s?: number;
                /**
                 * @description `open`: open a file with its default app (`xdg-open` on Linux, `open` on macOS).
                 * @enum {string}
                 */
                type: 'open';
                /** @description The window to wait for; default: a window whose name contains the file's name. `false` does not wait. */
                wait_for?:
                  | {
                      /** @description The node's application (its window class on Linux). */
                      app?: string;
                      /** @description The node has (or has not) the keyboard focus. */
                      focused?: boolean;
                      /** @description Compare `name`, `name_contains`, `name_matches` and `app` ignoring case. */
                      ignore_case?: boolean;
                      /** @description The node is named exactly this. */
                      name?: string;
                      /** @description The node's name contains this. */
                      name_contains?: string;
                      /** @description The node's name matches this regular expression (RE2 syntax: no backreferences). */
                      name_matches?: string;
                      /** @description The node has this role (`window`, `push button`, `terminal`, …). */
                      role?: string;
                    }
                  | false;
              }
            | {
                /** @description Run it again until `expect` holds, at most this many times (default 1), within the deadline. */
                attempts?: number;
                /** @description A shell command line, or argv (program and arguments). */
                command: string | string[];
                /** @description When `expect` still does not hold after the attempts, report it and go on with the next step instead of failing the setup (macOSWorld’s `pre_command` without `force_error_free_prep`). */
                continue_on_failure?: boolean;
                /** @description What the command must do; by default, exit 0. */
                expect?: {
                  /** @description The exit code the command must end with (default 0); `null` accepts any. */
                  exit_code?: number | null;
                  /** @description Compare the stdout and stderr expectations ignoring case. */
                  ignore_case?: boolean;
                  /** @description Standard error contains this (an array: every one of these). */
                  stderr_contains?: string | string[];
                  /** @description Standard error contains none of these. */
                  stderr_excludes?: string[];
                  /** @description Standard output contains this (an array: every one of these). */
                  stdout_contains?: string | string[];
                  /** @description Standard output, without its trailing newlines, is exactly this. */
                  stdout_equals?: string;
                  /** @description Standard output contains none of these. */
                  stdout_excludes?: string[];
                  /** @description Standard output matches this regular expression (RE2 syntax). */
                  stdout_matches?: string;
                };
                /** @description Pause between attempts (default 500). */
                interval_ms?: number;
                /** @description The step's deadline in seconds (default 120); the whole setup's deadline bounds it too. */
                timeout_s?: number;
                /**
                 * @description `command`: run a command and check its result.
                 * @enum {string}
                 */
                type: 'command';
              }
            | {
                /** @description How long. */
                seconds: number;
                /**
                 * @description `sleep`: wait.
                 * @enum {string}
                 */
                type: 'sleep';
              }
          )[];
          /** @description A task of the account (account key): its setup (script, then steps) or its grader. */
          task_id?: string;
          /** @description The deadline of the whole setup, in seconds (default 600, at most 3600). */
          timeout_s?: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description How long the setup took. */
            duration_ms: number;
            /** @description The index of the step that failed; null when none did. */
            failed_step: number | null;
            /** @description What happened (which step failed and why), for people. */
            message: string;
            /**
             * @description `completed` when every step succeeded.
             * @enum {unknown}
             */
            status: 'completed' | 'failed';
            /** @description Each step, in order. */
            steps: {
              /** @description `command`: how many times it ran. */
              attempts?: number;
              /** @description `download`: bytes written. */
              bytes?: number;
              /** @description How long it took. */
              duration_ms: number;
              /** @description `command`: the exit code of its last run. */
              exit_code?: number;
              /** @description Position of the step, from 0. */
              index: number;
              /** @description What happened, for people (why it failed). */
              message?: string;
              /**
               * @description `ok`, `failed` (the setup stops here) or `skipped` (not reached).
               * @enum {unknown}
               */
              status: 'ok' | 'failed' | 'skipped';
              /** @description The step kind. */
              type: string;
              /** @description `launch`, `open`: the name of the window that was waited for. */
              window?: string;
            }[];
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  listSandboxSnapshots: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The image the disk delta applies to; null until captured. */
            base_image: string | null;
            /**
             * Format: date-time
             * @description When the capture was asked.
             */
            created_at: string;
            /** @description The base image's disk size, GiB; null until captured. */
            disk_gib: number | null;
            /** @description The name given at capture. */
            name: string;
            /** @description The sandbox it was captured from. */
            sandbox_id: string;
            /** @description SHA-256 of the stored delta; null until captured. */
            sha256: string | null;
            /** @description Size of the stored delta; null until captured. */
            size_bytes: number | null;
            /**
             * @description pending, capturing, ready (restorable), failed.
             * @enum {unknown}
             */
            status: 'pending' | 'capturing' | 'ready' | 'failed';
            /** @description The snapshot version: its id (restore with `snapshot`). */
            version: string;
          }[];
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  createSnapshot: {
    parameters: {
      query?: never;
      header?: {
        /** @description At most 255 bytes. */
        'idempotency-key'?: string;
      };
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description A name of your choice; each capture gets its own version. */
          name: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The image the disk delta applies to; null until captured. */
            base_image: string | null;
            /**
             * Format: date-time
             * @description When the capture was asked.
             */
            created_at: string;
            /** @description The base image's disk size, GiB; null until captured. */
            disk_gib: number | null;
            /** @description The name given at capture. */
            name: string;
            /** @description The sandbox it was captured from. */
            sandbox_id: string;
            /** @description SHA-256 of the stored delta; null until captured. */
            sha256: string | null;
            /** @description Size of the stored delta; null until captured. */
            size_bytes: number | null;
            /**
             * @description pending, capturing, ready (restorable), failed.
             * @enum {unknown}
             */
            status: 'pending' | 'capturing' | 'ready' | 'failed';
            /** @description The snapshot version: its id (restore with `snapshot`). */
            version: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  connectSsh: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Switching Protocols: the SSH stream follows. */
      101: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      426: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getSshCredentials: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description OpenSSH private key of this VM's login; discarded with the VM. */
            private_key: string;
            /** @description Path of the SSH WebSocket. */
            ssh_url: string;
            /** @description The VM user's login name. */
            username: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  createViewerToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description When the token stops opening connections.
             */
            expires_at: string;
            /** @description The viewer token: watches this sandbox only, until it expires. */
            token: string;
            /** @description Path of the VNC WebSocket with the token in `?token=`. */
            vnc_url: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  revokeViewerTokens: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  connectVnc: {
    parameters: {
      query?: {
        /** @description The viewer token (POST .../viewer-token). */
        token?: string;
      };
      header?: never;
      path: {
        /** @description The sandbox id (`sb-` and 32 hex digits). */
        sandboxID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Switching Protocols: RFB 3.8 follows. */
      101: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      426: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getSession: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A dashboard session (the cookie itself is HttpOnly). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The account signed in. */
            account: string;
            /** @description Send as `X-CSRF-Token` with every request of this session that changes something. */
            csrf_token: string;
            /**
             * Format: date-time
             * @description When the session ends; sign in again after.
             */
            expires_at: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  signIn: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The account key. */
          key: string;
        };
      };
    };
    responses: {
      /** @description A dashboard session (the cookie itself is HttpOnly). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The account signed in. */
            account: string;
            /** @description Send as `X-CSRF-Token` with every request of this session that changes something. */
            csrf_token: string;
            /**
             * Format: date-time
             * @description When the session ends; sign in again after.
             */
            expires_at: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  signOut: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  listSnapshots: {
    parameters: {
      query?: {
        /** @description Only the snapshots of this sandbox. */
        sandbox_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The image the disk delta applies to; null until captured. */
            base_image: string | null;
            /**
             * Format: date-time
             * @description When the capture was asked.
             */
            created_at: string;
            /** @description The base image's disk size, GiB; null until captured. */
            disk_gib: number | null;
            /** @description The name given at capture. */
            name: string;
            /** @description The sandbox it was captured from. */
            sandbox_id: string;
            /** @description SHA-256 of the stored delta; null until captured. */
            sha256: string | null;
            /** @description Size of the stored delta; null until captured. */
            size_bytes: number | null;
            /**
             * @description pending, capturing, ready (restorable), failed.
             * @enum {unknown}
             */
            status: 'pending' | 'capturing' | 'ready' | 'failed';
            /** @description The snapshot version: its id (restore with `snapshot`). */
            version: string;
          }[];
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  getSnapshot: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The snapshot version. */
        version: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The image the disk delta applies to; null until captured. */
            base_image: string | null;
            /**
             * Format: date-time
             * @description When the capture was asked.
             */
            created_at: string;
            /** @description The base image's disk size, GiB; null until captured. */
            disk_gib: number | null;
            /** @description The name given at capture. */
            name: string;
            /** @description The sandbox it was captured from. */
            sandbox_id: string;
            /** @description SHA-256 of the stored delta; null until captured. */
            sha256: string | null;
            /** @description Size of the stored delta; null until captured. */
            size_bytes: number | null;
            /**
             * @description pending, capturing, ready (restorable), failed.
             * @enum {unknown}
             */
            status: 'pending' | 'capturing' | 'ready' | 'failed';
            /** @description The snapshot version: its id (restore with `snapshot`). */
            version: string;
          };
        };
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
  deleteSnapshot: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The snapshot version. */
        version: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No content. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Every error response. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
      /** @description Every error response. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description A stable error code, e.g. `sandbox_not_found`. */
            error: string;
            /** @description A sentence for people. */
            message: string;
          };
        };
      };
    };
  };
}
