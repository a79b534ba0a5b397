// The VM's top-level windows from X11 itself (EWMH properties the window manager keeps on the root
// window): title, geometry, owning pid, class and focus. Works for every X client, whether or not it
// speaks AT-SPI; windows-atspi.ts adds the accessibility subtree where one exists.
import type { WindowNode } from '../driver.ts';
import type { X11Connection } from './x11-connection.ts';

// Predefined atoms of the core protocol.
const ATOM_STRING = 31;
const ATOM_WM_NAME = 39;
const ATOM_WM_CLASS = 67;
const ATOM_WINDOW = 33;
const ATOM_CARDINAL = 6;
const ANY_TYPE = 0;
const MAP_VIEWABLE = 2;

async function property(
  conn: X11Connection,
  window: number,
  prop: number,
  type: number,
  longs = 1024,
): Promise<Buffer> {
  const p = await conn.request<{ data: Buffer }>('GetProperty', (reply) =>
    conn.client.GetProperty(0, window, prop, type, 0, longs, reply),
  );
  return p.data;
}

function u32s(buf: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i + 4 <= buf.length; i += 4) out.push(buf.readUInt32LE(i));
  return out;
}

async function title(conn: X11Connection, window: number): Promise<string> {
  const utf8 = await property(conn, window, await conn.atom('_NET_WM_NAME'), await conn.atom('UTF8_STRING'));
  if (utf8.length > 0) return utf8.toString('utf8');
  return (await property(conn, window, ATOM_WM_NAME, ATOM_STRING)).toString('latin1');
}

/** WM_CLASS is "instance\0class\0"; the class names the application. */
async function appClass(conn: X11Connection, window: number): Promise<string | undefined> {
  const parts = (await property(conn, window, ATOM_WM_CLASS, ATOM_STRING)).toString('latin1').split('\0');
  return parts[1] || parts[0] || undefined;
}

async function describe(
  conn: X11Connection,
  window: number,
  active: number,
): Promise<WindowNode | undefined> {
  try {
    const [name, app, pidBuf, geom, origin, attrs] = await Promise.all([
      title(conn, window),
      appClass(conn, window),
      property(conn, window, await conn.atom('_NET_WM_PID'), ATOM_CARDINAL, 1),
      conn.request<{ width: number; height: number }>('GetGeometry', (r) =>
        conn.client.GetGeometry(window, r),
      ),
      conn.request<{ destX: number; destY: number }>('TranslateCoordinates', (r) =>
        conn.client.TranslateCoordinates(window, conn.root, 0, 0, r),
      ),
      conn.request<{ mapState: number }>('GetWindowAttributes', (r) =>
        conn.client.GetWindowAttributes(window, r),
      ),
    ]);
    if (attrs.mapState !== MAP_VIEWABLE) return undefined;
    const node: WindowNode = {
      role: 'window',
      name,
      x: origin.destX,
      y: origin.destY,
      width: geom.width,
      height: geom.height,
      id: `0x${window.toString(16)}`,
      focused: window === active,
    };
    if (app) node.app = app;
    const pid = u32s(pidBuf)[0];
    if (pid) node.pid = pid;
    return node;
  } catch {
    // The window closed while we were asking about it.
    return undefined;
  }
}

/** Client windows the window manager lists, or the root's mapped children without an EWMH manager. */
async function clientWindows(conn: X11Connection): Promise<number[]> {
  const listed = u32s(await property(conn, conn.root, await conn.atom('_NET_CLIENT_LIST'), ATOM_WINDOW));
  if (listed.length > 0) return listed;
  const tree = await conn.request<{ children: number[] }>('QueryTree', (r) =>
    conn.client.QueryTree(conn.root, r),
  );
  return tree.children;
}

/** Visible top-level windows, in the window manager's order (oldest first). Minimized ones are left out. */
export async function listWindows(conn: X11Connection): Promise<WindowNode[]> {
  const [windows, activeBuf] = await Promise.all([
    clientWindows(conn),
    property(conn, conn.root, await conn.atom('_NET_ACTIVE_WINDOW'), ANY_TYPE, 1),
  ]);
  const active = u32s(activeBuf)[0] ?? 0;
  const nodes = await Promise.all(windows.map((w) => describe(conn, w, active)));
  return nodes.filter((n): n is WindowNode => n !== undefined && (n.name !== '' || n.width > 1));
}
