// One long-running X11 connection to a VM's display, with promise-returning requests. Every request
// is bounded by a deadline, and every pending request fails when the connection drops, so a dead or
// restarted Xvfb never leaves a caller waiting. `X11Link` re-opens the connection on the next call.
import { createConnection, type Socket } from 'node:net';
import x11, { type X11Client, type X11Display } from 'x11';
import fdpass from 'x11/lib/fdpass.js';
import { DriverError } from '../driver.ts';
import type { X11Cookie } from './x11-auth.ts';
import { ShmProvider } from './x11-shm.ts';

const REQUEST_TIMEOUT_MS = 10_000;
/** The core protocol's predefined atoms end at WM_TRANSIENT_FOR; every other atom's number is the server's choice. */
const LAST_PREDEFINED_ATOM = 68;
const CONNECT_TIMEOUT_MS = 5_000;

type Reply<T> = (err: Error | null | undefined, value: T) => boolean;

export class X11Connection {
  readonly display: string;
  readonly client: X11Client;
  readonly root: number;
  readonly width: number;
  readonly height: number;
  readonly minKeycode: number;
  readonly maxKeycode: number;
  #closed = false;
  readonly #pending = new Set<(err: Error) => void>();
  readonly #extensions = new Map<string, Promise<unknown>>();
  readonly #atoms = new Map<string, Promise<number>>();

  readonly #shm: ShmProvider;

  private constructor(display: string, info: X11Display, shm: ShmProvider) {
    const screen = info.screen[0];
    if (!screen) throw new DriverError('unreachable', `display ${display} has no screen`);
    this.display = display;
    this.#shm = shm;
    this.client = info.client;
    this.root = screen.root;
    this.width = screen.pixel_width;
    this.height = screen.pixel_height;
    this.minKeycode = info.min_keycode;
    this.maxKeycode = info.max_keycode;
    const onGone = (): void =>
      this.#fail(new DriverError('unreachable', `X display ${display} closed the connection`));
    this.client.stream.on('close', onGone);
    this.client.on('end', onGone);
    // Errors of requests with a reply reach their callers; an error of a one-way request (XTEST input)
    // has no caller to reach and is visible as its missing effect. Listening keeps them from crashing
    // the server process.
    this.client.on('error', () => {});
  }

  /**
   * Opens a connection to the X server on `socket` (its socket file); `display` names it in errors.
   * The socket is connected here, not by x11 (which only knows /tmp/.X11-unix/X<N>, and tries TCP on
   * the machine when that file is missing), over a transport that can pass descriptors (MIT-SHM).
   */
  static open(display: string, socket: string, cookie: X11Cookie): Promise<X11Connection> {
    return new Promise((resolve, reject) => {
      const shm = new ShmProvider();
      const stream: Socket = fdpass.connect(socket) ?? createConnection(socket);
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        shm.destroyAll();
        stream.destroy();
        reject(err);
      };
      const timer = setTimeout(
        () =>
          fail(
            new DriverError(
              'unreachable',
              `X display ${display} did not answer within ${CONNECT_TIMEOUT_MS} ms`,
            ),
          ),
        CONNECT_TIMEOUT_MS,
      );
      stream.once('error', (e) =>
        fail(new DriverError('unreachable', `cannot open X display ${display}: ${e.message}`)),
      );
      stream.once('connect', () => {
        if (settled) return;
        // Handed over connected: x11 then starts the handshake at once.
        const client = x11.createClient({ display, auth: cookie, shm, stream }, (err, info) => {
          if (settled) return;
          if (err) {
            fail(new DriverError('unreachable', `cannot open X display ${display}: ${err.message}`));
            return;
          }
          try {
            privateAtomCache(info.client);
            settled = true;
            clearTimeout(timer);
            resolve(new X11Connection(display, info, shm));
          } catch (e) {
            fail(e as Error);
          }
        });
        // Before setup completes, stream errors come through the callback; afterwards through the listener above.
        client.on('error', () => {});
      });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Issues one request that has a reply. `send` receives the callback to pass to the x11 method.
   * Rejects on an X error, on the deadline (the connection is then dropped: a server that stops
   * answering is not trusted with the next request), or when the connection closes.
   */
  request<T>(what: string, send: (reply: Reply<T>) => void): Promise<T> {
    if (this.#closed)
      return Promise.reject(new DriverError('unreachable', `X display ${this.display} is closed`));
    return new Promise<T>((resolve, reject) => {
      const fail = (err: Error): void => {
        clearTimeout(timer);
        this.#pending.delete(fail);
        reject(err);
      };
      const timer = setTimeout(() => {
        fail(
          new DriverError(
            'timeout',
            `X request ${what} on ${this.display} took over ${REQUEST_TIMEOUT_MS} ms`,
          ),
        );
        this.close();
      }, REQUEST_TIMEOUT_MS);
      this.#pending.add(fail);
      send((err, value) => {
        if (!this.#pending.has(fail)) return true;
        clearTimeout(timer);
        this.#pending.delete(fail);
        if (err) reject(new DriverError('command_failed', `X request ${what} failed: ${err.message}`, what));
        else resolve(value);
        return true;
      });
    });
  }

  /** Round trip: resolves once the server has processed every request sent before it. */
  sync(): Promise<void> {
    return this.request('GetInputFocus', (reply) => this.client.GetInputFocus(reply)).then(() => undefined);
  }

  /** Loads an X extension once per connection; undefined when the server lacks it. */
  extension<T>(name: string): Promise<T | undefined> {
    let ext = this.#extensions.get(name);
    if (!ext) {
      ext = this.request<unknown>(`QueryExtension ${name}`, (reply) =>
        this.client.require(name, reply),
      ).catch((err: unknown) => {
        if (err instanceof DriverError && err.code !== 'command_failed') throw err;
        return undefined;
      });
      this.#extensions.set(name, ext);
    }
    return ext as Promise<T | undefined>;
  }

  atom(name: string): Promise<number> {
    let atom = this.#atoms.get(name);
    if (!atom) {
      atom = this.request<number>(`InternAtom ${name}`, (reply) =>
        this.client.InternAtom(false, name, reply),
      );
      this.#atoms.set(name, atom);
    }
    return atom;
  }

  /** Reads what the X server wrote into a MIT-SHM segment into its memory (x11-shm.ts). */
  readBack(buffer: Buffer, length: number): Promise<void> {
    if (this.#closed)
      return Promise.reject(new DriverError('unreachable', `X display ${this.display} connection closed`));
    return this.#shm.readBack(buffer, length);
  }

  close(): void {
    if (this.#closed) return;
    this.#fail(new DriverError('unreachable', `X display ${this.display} connection closed`));
    this.client.stream.destroy();
  }

  #fail(err: Error): void {
    this.#closed = true;
    this.#shm.destroyAll();
    for (const fail of [...this.#pending]) fail(err);
  }
}

/**
 * The connection of one VM, opened on first use and re-opened after it drops. The cookie is the one
 * the driver made for this run of the display (a restarted Xvfb belongs to a new run, with a new
 * LinuxGuest): it is never read from a file, since the VM's copy sits in a dir the VM writes to (a
 * FIFO there held a thread of the server's pool forever, a link made root read any file).
 */
export class X11Link {
  readonly #display: string;
  readonly #socket: string;
  readonly #cookie: X11Cookie;
  #current: Promise<X11Connection> | undefined;

  /** `display` (e.g. `:0`) is the server's name in messages; `socket` is where it listens. */
  constructor(display: string, socket: string, cookie: Buffer) {
    this.#display = display;
    this.#socket = socket;
    this.#cookie = { name: 'MIT-MAGIC-COOKIE-1', data: cookie.toString('latin1') };
  }

  async get(): Promise<X11Connection> {
    const current = this.#current;
    if (current) {
      const conn = await current.catch(() => undefined);
      if (conn && !conn.closed) return conn;
      // Another caller may have re-opened it meanwhile: share that attempt.
      if (this.#current !== current) return this.get();
    }
    return this.#open();
  }

  #open(): Promise<X11Connection> {
    const opening = X11Connection.open(this.#display, this.#socket, this.#cookie);
    // Concurrent callers share one attempt; a failed attempt is retried by the next call.
    this.#current = opening;
    return opening;
  }

  close(): void {
    const current = this.#current;
    this.#current = undefined;
    current?.then(
      (conn) => conn.close(),
      () => {},
    );
  }
}

/**
 * Gives the client an atom cache of its own. x11 starts every client with the same module-level
 * object of predefined atoms and adds each InternAtom answer to it, so the process shared one cache
 * across all VMs' X servers: a server that had interned its atoms in another order got another
 * server's number for `_NET_ACTIVE_WINDOW` (a VM that had served an earlier sandbox then listed its
 * windows with `focused` false while xprop showed the active one). Only the predefined atoms are the
 * same on every server; other entries there came from some other connection and are dropped.
 */
function privateAtomCache(client: X11Client): void {
  const atoms: Record<string, number> = {};
  const names: Record<number, string> = {};
  for (const [name, atom] of Object.entries(client.atoms)) {
    if (atom > LAST_PREDEFINED_ATOM) continue;
    atoms[name] = atom;
    names[atom] = name;
  }
  client.atoms = atoms;
  client.atom_names = names;
}
