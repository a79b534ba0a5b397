// The frames of the exec-stream WebSocket: Kubernetes' exec channel protocol (`v5.channel.k8s.io`,
// and `v4.channel.k8s.io` without the close channel), so that any client that speaks to a pod's exec
// (kubectl's, client-go's remotecommand, @kubernetes/client-node's WebSocketHandler, the Python
// client's WSClient) reads these frames as they are. Each binary message is one channel byte and its
// data:
//
//   0 stdin (client → server)      1 stdout, 2 stderr (server → client)
//   3 status: one JSON metav1.Status, the last message before the close (server → client)
//   4 resize: JSON {"Width": cols, "Height": rows} (client → server, a tty only)
//   255 close (v5): [255, 0] closes stdin (EOF)
//
// The status is kubelet's: `{"status":"Success"}` for exit 0; `reason: NonZeroExitCode` with a cause
// `{reason: "ExitCode", message: "<code>"}` otherwise (what clients read the exit code from); a
// timeout adds a cause `{reason: "TimedOut"}`; a stream the VM's side ended adds none, with
// `reason: InternalError`.
import type { ExecExit, PtySize } from '../../hosts/driver.ts';

export const PROTOCOL_V5 = 'v5.channel.k8s.io';
export const PROTOCOL_V4 = 'v4.channel.k8s.io';
/** Browsers cannot send headers on a WebSocket: Kubernetes' way to carry the bearer token instead. */
const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const STATUS = 3;
export const RESIZE = 4;
export const CLOSE = 255;

/** The protocol to answer with, of those offered: v5, else v4; none offered is v5's frames unnamed. */
export function chooseProtocol(offered: Set<string>): string | false {
  if (offered.has(PROTOCOL_V5)) return PROTOCOL_V5;
  if (offered.has(PROTOCOL_V4)) return PROTOCOL_V4;
  return false;
}

/** The bearer token a browser put in `Sec-WebSocket-Protocol`, if any. */
export function bearerFromProtocols(header: string | undefined): string | undefined {
  for (const p of (header ?? '').split(',').map((s) => s.trim())) {
    if (p.startsWith(BEARER_PROTOCOL_PREFIX)) {
      const token = Buffer.from(p.slice(BEARER_PROTOCOL_PREFIX.length), 'base64url').toString('utf8');
      return token.length > 0 && token.length <= 256 ? token : undefined;
    }
  }
  return undefined;
}

export function frame(channel: number, data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const out = Buffer.allocUnsafe(body.length + 1);
  out[0] = channel;
  body.copy(out, 1);
  return out;
}

export type ClientFrame =
  | { kind: 'stdin'; data: Buffer }
  | { kind: 'resize'; size: PtySize }
  | { kind: 'close-stdin' }
  | { kind: 'ignored' };

/** Reads a client message; throws a sentence naming what is wrong with it. */
export function readClientFrame(message: Buffer): ClientFrame {
  if (message.length === 0) throw new Error('an empty message has no channel byte');
  const data = message.subarray(1);
  switch (message[0]) {
    case STDIN:
      return { kind: 'stdin', data };
    case RESIZE:
      return { kind: 'resize', size: parseResize(data) };
    case CLOSE:
      // [255, n]: only stdin is the client's to close; closing another channel changes nothing.
      return data[0] === STDIN ? { kind: 'close-stdin' } : { kind: 'ignored' };
    default:
      throw new Error(`channel ${message[0]} is not one a client writes (0 stdin, 4 resize, 255 close)`);
  }
}

function parseResize(data: Buffer): PtySize {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch {
    throw new Error('a resize message is JSON {"Width": columns, "Height": rows}');
  }
  const { Width, Height } = (parsed ?? {}) as { Width?: unknown; Height?: unknown };
  if (typeof Width !== 'number' || typeof Height !== 'number')
    throw new Error('a resize message is JSON {"Width": columns, "Height": rows}');
  return { cols: Width, rows: Height };
}

export interface Status {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: 'NonZeroExitCode' | 'InternalError';
  details?: { causes: { reason: string; message?: string }[] };
}

/** kubelet's status for a command that exited. */
export function exitStatus(exit: ExecExit, timeoutS?: number): Status {
  if (exit.code === 0 && !exit.timedOut) return { metadata: {}, status: 'Success' };
  const causes: { reason: string; message?: string }[] = [{ reason: 'ExitCode', message: String(exit.code) }];
  if (exit.timedOut) causes.push({ reason: 'TimedOut', message: `${timeoutS ?? 0}` });
  return {
    metadata: {},
    status: 'Failure',
    message: exit.timedOut
      ? `command timed out after ${timeoutS ?? 0} s (exit code ${exit.code})`
      : `command terminated with non-zero exit code: exit status ${exit.code}`,
    reason: 'NonZeroExitCode',
    details: { causes },
  };
}

/** The status of a stream whose command's end was not seen (the VM's connection went away). */
export function failureStatus(message: string): Status {
  return { metadata: {}, status: 'Failure', message, reason: 'InternalError' };
}
