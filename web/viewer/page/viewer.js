// The live view in the browser. The page is static: the sandbox id comes from this page's path
// (/view/<id>) and the viewer token from its query (?token=…); nothing is echoed by the server.
// It opens the sandbox's VNC WebSocket on the same host, and hands the socket to noVNC. The socket is
// opened here rather than by noVNC so that its close code is known: noVNC's `disconnect` event only
// says whether the end was clean, and 4001 (the link expired) deserves its own message.
/* global document, location, URL, URLSearchParams, WebSocket */
import RFB from '../novnc/core/rfb.js';

const SANDBOX_ID = /^sb-[0-9a-f]{32}$/;

const status = document.getElementById('status');
const sandboxLabel = document.getElementById('sandbox');
const viewOnly = document.getElementById('view-only');
const reconnect = document.getElementById('reconnect');
const screen = document.getElementById('screen');

/** @type {RFB | null} */
let rfb = null;

function show(state, text) {
  status.dataset.state = state;
  status.textContent = text;
  document.title = `${state} · sandbay live view`;
  reconnect.hidden = state !== 'disconnected';
}

/** The link this page was opened with: `{id, token}`, or `{error}` saying what is wrong with it. */
function readLink() {
  const id = location.pathname.split('/').pop() ?? '';
  const params = new URLSearchParams(location.search);
  const token = params.get('token');
  if (!SANDBOX_ID.test(id)) return { error: 'this is not a sandbox link (/view/sb-…?token=…)' };
  if (!token) return { error: 'the link carries no viewer token (?token=…)' };
  return { id, token, viewOnly: ['1', 'true'].includes(params.get('view_only') ?? '') };
}

/** ws(s)://<this host>/v1/sandboxes/<id>/vnc?token=…, relative to this page (works below a prefix). */
function vncUrl(id, token) {
  const url = new URL(`../v1/sandboxes/${id}/vnc`, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = '';
  url.searchParams.set('token', token);
  return url.href;
}

function disconnectReason(close, connected, securityFailure) {
  if (securityFailure) {
    const detail = securityFailure.reason ? `: ${securityFailure.reason}` : '';
    return `the VNC server refused the session${detail}`;
  }
  const code = close?.code;
  if (code === 4001) return 'the link has expired (close code 4001); ask the sandbox owner for a fresh one';
  if (code === 1001) return 'the server is shutting down (close code 1001)';
  if (code === 1000) return 'the sandbox ended the session (close code 1000)';
  if (!connected) {
    return 'could not connect: the link is invalid or expired, or the sandbox is not running';
  }
  return `the connection was lost${code ? ` (close code ${code})` : ''}`;
}

function connect(link) {
  if (rfb) rfb.disconnect();
  show('connecting', 'connecting…');
  const socket = new WebSocket(vncUrl(link.id, link.token), ['binary']);
  // Registered before noVNC attaches its own handler, so the close event is known when noVNC
  // reports the disconnect.
  let close = null;
  socket.addEventListener('close', (event) => (close = event));
  let connected = false;
  let securityFailure = null;

  const session = new RFB(screen, socket, { shared: true });
  rfb = session;
  session.scaleViewport = true;
  session.viewOnly = viewOnly.checked;
  session.addEventListener('connect', () => {
    connected = true;
    show('connected', 'connected');
  });
  session.addEventListener('securityfailure', (event) => (securityFailure = event.detail));
  session.addEventListener('disconnect', () => {
    if (rfb !== session) return; // a session replaced by a reconnect
    rfb = null;
    show('disconnected', `disconnected: ${disconnectReason(close, connected, securityFailure)}`);
  });
}

const link = readLink();
if (link.error) {
  show('disconnected', `disconnected: ${link.error}`);
  reconnect.hidden = true;
} else {
  sandboxLabel.textContent = link.id;
  viewOnly.checked = link.viewOnly;
  viewOnly.addEventListener('change', () => {
    if (!rfb) return;
    rfb.viewOnly = viewOnly.checked;
    rfb.focus(); // the keyboard goes back to the remote screen, not the checkbox
  });
  reconnect.addEventListener('click', () => connect(link));
  connect(link);
}
