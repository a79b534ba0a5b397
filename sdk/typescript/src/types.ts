// The SDK's wire types, each taken from the generated OpenAPI types by path and method (never by
// operationId), so a change in the API's schemas shows up here at `npm run sdk:types`.
import type { paths } from './generated/openapi.ts';

type Op<P extends keyof paths, M extends keyof paths[P]> = NonNullable<paths[P][M]>;
type Content<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON body of an operation's 2xx answer. */
export type Answer<P extends keyof paths, M extends keyof paths[P], S extends number = 200> =
  Op<P, M> extends { responses: infer Rs } ? (S extends keyof Rs ? Content<Rs[S]> : never) : never;
/** The JSON request body of an operation. */
export type RequestOf<P extends keyof paths, M extends keyof paths[P]> =
  Op<P, M> extends { requestBody?: infer B } ? Content<NonNullable<B>> : never;

export type Reservation = Answer<'/v1/reservations/{reservationID}', 'get'>;
export type ReservationCreated = Answer<'/v1/reservations', 'post', 201>;
export type ReservationRequest = RequestOf<'/v1/reservations', 'post'>;
export type ReservationEdit = RequestOf<'/v1/reservations/{reservationID}', 'patch'>;
export type Platforms = Answer<'/v1/platforms', 'get'>;
export type PlatformModel = Platforms['models'][number];
export type Session = Answer<'/v1/session', 'get'>;
export type Account = Answer<'/v1/me', 'get'>;
export type AccountKey = Answer<'/v1/me/keys', 'get'>[number];
export type RotatedKey = Answer<'/v1/me/keys/rotate', 'post'>;
export type Health = Answer<'/health', 'get'>;

export type SandboxCreateRequest = RequestOf<'/v1/sandboxes', 'post'>;
export type SandboxCreated = Answer<'/v1/sandboxes', 'post', 201>;
export type SandboxInfo = Answer<'/v1/sandboxes/{sandboxID}', 'get'>;
export type Keepalive = Answer<'/v1/sandboxes/{sandboxID}/keepalive', 'post'>;
export type ForkResult = Answer<'/v1/sandboxes/{sandboxID}/fork', 'post', 201>;
export type ViewerToken = Answer<'/v1/sandboxes/{sandboxID}/viewer-token', 'post'>;
export type SshCredentials = Answer<'/v1/sandboxes/{sandboxID}/ssh/credentials', 'get'>;
/** The egress policy in force, and what the sandbox's Mac enforces. */
export type Network = Answer<'/v1/sandboxes/{sandboxID}/network', 'get'>;
/** An egress policy: `{mode: 'none' | 'all' | 'allow', allow?: [IPv4 CIDRs or domains]}`. */
export type EgressPolicy = RequestOf<'/v1/sandboxes/{sandboxID}/network', 'patch'>['egress'];

export type Ok = Answer<'/v1/sandboxes/{sandboxID}/mouse/click', 'post'>;
export type Position = Answer<'/v1/sandboxes/{sandboxID}/mouse/position', 'get'>;
export type DisplayInfo = Answer<'/v1/sandboxes/{sandboxID}/display/info', 'get'>;
type WindowsAnswer = Answer<'/v1/sandboxes/{sandboxID}/display/windows', 'get'>;
/** The window tree: a list of windows, their accessibility elements below them in `children`. */
export type WindowTree = Extract<WindowsAnswer, unknown[]>;
export type WindowNode = WindowTree[number];
/** `display/windows?best_effort=1`: the tree, or (`available: false`) why the VM could not give it. */
export type AccessibilityTree = Extract<WindowsAnswer, { available: boolean }>;
export type ExecResult = Answer<'/v1/sandboxes/{sandboxID}/exec', 'post'>;
type ActBody = RequestOf<'/v1/sandboxes/{sandboxID}/act', 'post'>;
type ActAnswer = Answer<'/v1/sandboxes/{sandboxID}/act', 'post'>;
/** The native act body; the vendors' computer-use vocabularies are the other two shapes. */
export type ActRequest = Extract<ActBody, { action: { type: string } }>;
export type Action = ActRequest['action'];
export type ActResult = Extract<ActAnswer, { ok: boolean }>;
/** Anthropic's computer tool input (a tool_use block's `input`), and what goes in its tool_result's content. */
export type AnthropicComputerAction = Extract<ActBody, { action: string }>;
export type AnthropicComputerResult = Extract<ActAnswer, { content: unknown[] }>;
/** OpenAI's computer_call `action`, and the `output` of its computer_call_output. */
export type OpenAIComputerAction = Extract<ActBody, { type: string; action?: never }>;
export type OpenAIComputerResult = Extract<ActAnswer, { type: 'computer_screenshot' }>;
export type Recording = Answer<'/v1/sandboxes/{sandboxID}/recordings/{recordingID}', 'get'>;
/** The clipboard as the API answers it (an image's data in base64). */
export type ClipboardContent = Answer<'/v1/sandboxes/{sandboxID}/clipboard', 'get'>;

export type Snapshot = Answer<'/v1/snapshots/{version}', 'get'>;

export type TaskSummary = Answer<'/v1/me/tasks', 'get'>[number];
export type Task = Answer<'/v1/me/tasks/{id}', 'get'>;
export type Trajectory = Answer<'/v1/me/tasks/{id}/trajectory', 'get'>;
export type Replay = Answer<'/v1/me/tasks/replays/{replayID}', 'get'>;
export type TaskCreateRequest = RequestOf<'/v1/me/tasks', 'post'>;
export type TaskUpdateRequest = RequestOf<'/v1/me/tasks/{id}', 'patch'>;
export type Collection = Answer<'/v1/sandboxes/{sandboxID}/collection', 'get'>;
export type EvaluationRun = Answer<'/v1/me/evaluation-runs/{runID}', 'get'>;
export type EvaluationRunCreateRequest = RequestOf<'/v1/me/evaluation-runs', 'post'>;
export type EvaluationRunResults = Answer<'/v1/me/evaluation-runs/{runID}/results', 'get'>;
export type AttemptFinishRequest = NonNullable<RequestOf<'/v1/sandboxes/{sandboxID}/done', 'post'>>;
export type AttemptFinished = Answer<'/v1/sandboxes/{sandboxID}/done', 'post'>;
export type TaskImportRequest = RequestOf<'/v1/me/tasks/import', 'post'>;
/** What an import would make (`dry_run: true`). */
export type TaskImportPreview = Answer<'/v1/me/tasks/import', 'post'>;

export type SetupRequest = RequestOf<'/v1/sandboxes/{sandboxID}/setup', 'post'>;
/** One setup step (`download`, `launch`, `open`, `command`, `sleep`; docs/evaluation.md). */
export type SetupStep = NonNullable<SetupRequest['steps']>[number];
export type SetupResult = Answer<'/v1/sandboxes/{sandboxID}/setup', 'post'>;
export type GradeRequest = RequestOf<'/v1/sandboxes/{sandboxID}/grade', 'post'>;
/** A grader: `{combine?, checks}`, or a shell script (exit 0 → reward 1). */
export type Grader = NonNullable<GradeRequest['grader']>;
export type GradeResult = Answer<'/v1/sandboxes/{sandboxID}/grade', 'post'>;
export type Blob = Answer<'/v1/blobs/{blobID}', 'get'>;
