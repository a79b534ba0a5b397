// Cua's WebSocket (`/v1/sandboxes/{id}/cua/ws`, opened by api/ws/upgrade.ts once its key and
// sandbox are checked): each text message is `{command, params}` and gets one answer, in the order
// the messages came. Cua's messages carry no id, so the answers' order is how its SDK matches them;
// commands run one at a time, as Cua's server runs them. Pings are answered meanwhile (by `ws`),
// so a long command does not look like a dead connection to the SDK's keepalive.
import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { Guest } from '../../../hosts/driver.ts';
import { failure, lookup, perform, refusedParams } from './commands.ts';
import { answerBytes, type CuaAnswer } from './protocol.ts';

/**
 * Messages a client may have waiting behind the one running. Cua's SDK sends one and waits for its
 * answer; past this a client is flooding, and the socket closes (1008) rather than queue without end.
 */
export const MAX_WAITING_MESSAGES = 32;

/** The answer to one message, as the text (UTF-8) sent back. */
export async function answerMessage(
  text: string,
  guestOf: () => Promise<Guest>,
  log?: FastifyBaseLogger,
): Promise<string | Buffer> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (err) {
    return JSON.stringify({
      success: false,
      error: `Invalid JSON: ${(err as Error).message}`,
      code: 'invalid_json',
    });
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return JSON.stringify({
      success: false,
      error: 'A message is an object {command, params}',
      code: 'invalid_request',
    });
  const { command, params } = message as { command?: unknown; params?: unknown };
  const found = lookup(command);
  if ('refusal' in found) {
    const code = typeof command === 'string' && command !== '' ? 'cua_unknown_command' : 'invalid_request';
    return JSON.stringify({ success: false, error: found.refusal, code } satisfies CuaAnswer);
  }
  const refused = refusedParams(found.command, params);
  if (refused) return JSON.stringify(refused);
  let guest: Guest;
  try {
    guest = await guestOf();
  } catch (err) {
    // The socket is open: a sandbox gone or stopped meanwhile is this command's answer.
    return JSON.stringify(failure(err, log));
  }
  return answerBytes(await perform(found.command, params, guest, log));
}

/** Serves the protocol on `ws` until it closes; a command still running then finishes unanswered. */
export function serveCuaSocket(
  ws: WebSocket,
  guestOf: () => Promise<Guest>,
  log?: FastifyBaseLogger,
): Promise<void> {
  const waiting: string[] = [];
  let running = false;
  const drain = async () => {
    running = true;
    while (waiting.length > 0) {
      const answer = await answerMessage(waiting.shift()!, guestOf, log);
      if (ws.readyState !== ws.OPEN) break;
      ws.send(answer, { binary: false });
    }
    running = false;
  };
  ws.on('message', (data: RawData) => {
    if (waiting.length >= MAX_WAITING_MESSAGES) {
      ws.close(1008, 'too many commands waiting for an answer');
      return;
    }
    waiting.push(textOf(data));
    if (!running) void drain();
  });
  return new Promise((resolve) => {
    ws.once('close', () => {
      waiting.length = 0;
      resolve();
    });
  });
}

/** A message's text: Cua sends text frames; a binary frame is read as the same UTF-8. */
function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
