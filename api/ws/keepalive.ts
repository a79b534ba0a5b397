// Pings a WebSocket's client while it is open: a client that has not answered one ping by the next
// is gone (a dead network, a laptop that slept) and its socket is cut, so that a long-lived stream
// (a terminal, a forwarded WebSocket) never holds its command, channel and session slot for a peer
// that will not come back. Every WebSocket client answers pings by itself (RFC 6455 §5.5.2).
import type { WebSocket } from 'ws';

export const PING_INTERVAL_MS = 30_000;

/** Starts pinging; returns what stops it (also stopped by the socket's close). */
export function keepAlive(ws: WebSocket, intervalMs = PING_INTERVAL_MS): () => void {
  let answered = true;
  const onPong = () => (answered = true);
  ws.on('pong', onPong);
  const timer = setInterval(() => {
    if (!answered) return ws.terminate();
    answered = false;
    ws.ping();
  }, intervalMs);
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    ws.off('pong', onPong);
  };
  ws.once('close', stop);
  return stop;
}
