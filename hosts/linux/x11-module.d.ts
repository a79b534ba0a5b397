// The part of the untyped `x11` npm package (a pure-JS X11 protocol client) the linux guest uses.
// Callbacks that receive an error return `true` to tell the library the error was handled (otherwise
// it re-emits it as an 'error' event on the client).
declare module 'x11' {
  import type { EventEmitter } from 'node:events';
  import type { Duplex } from 'node:stream';

  type Cb<T> = (err: Error | null | undefined, value: T) => boolean | void;

  export interface X11Screen {
    root: number;
    pixel_width: number;
    pixel_height: number;
    root_depth: number;
  }

  export interface X11Display {
    screen: X11Screen[];
    min_keycode: number;
    max_keycode: number;
    client: X11Client;
  }

  export interface X11Image {
    depth: number;
    visualId: number;
    data: Buffer;
  }

  export interface X11Property {
    type: number;
    format: number;
    bytesAfter: number;
    data: Buffer;
  }

  export interface X11Pointer {
    root: number;
    child: number;
    rootX: number;
    rootY: number;
    keyMask: number;
  }

  export interface X11Geometry {
    windowid: number;
    xPos: number;
    yPos: number;
    width: number;
    height: number;
    borderWidth: number;
  }

  export interface X11Client extends EventEmitter {
    stream: Duplex;
    /** InternAtom answers, by name (x11 caches them and starts from the predefined atoms). */
    atoms: Record<string, number>;
    /** GetAtomName answers, by atom. */
    atom_names: Record<number, string>;
    GetImage(
      format: number,
      drawable: number,
      x: number,
      y: number,
      w: number,
      h: number,
      planeMask: number,
      cb: Cb<X11Image>,
    ): void;
    QueryPointer(window: number, cb: Cb<X11Pointer>): void;
    GetGeometry(drawable: number, cb: Cb<X11Geometry>): void;
    TranslateCoordinates(
      src: number,
      dst: number,
      x: number,
      y: number,
      cb: Cb<{ child: number; destX: number; destY: number }>,
    ): void;
    QueryTree(window: number, cb: Cb<{ root: number; parent: number; children: number[] }>): void;
    InternAtom(onlyIfExists: boolean, name: string, cb: Cb<number>): void;
    GetProperty(
      del: number,
      window: number,
      property: number,
      type: number,
      longOffset: number,
      longLength: number,
      cb: Cb<X11Property>,
    ): void;
    GetWindowAttributes(window: number, cb: Cb<{ mapState: number; overrideRedirect: number }>): void;
    GetKeyboardMapping(first: number, count: number, cb: Cb<number[][]>): void;
    ChangeKeyboardMapping(first: number, keysymsPerKeycode: number, keysyms: number[]): void;
    GetInputFocus(cb: Cb<{ focus: number; revertTo: number }>): void;
    require(name: string, cb: Cb<unknown>): void;
    terminate(): void;
  }

  export interface CreateClientOptions {
    display: string;
    auth?: { name: string; data: string };
    /** A MIT-SHM segment provider (see hosts/linux/x11-shm.ts), or false/'off' for none. */
    shm?: false | 'off' | object;
    disableBigRequests?: boolean;
    /** A connected stream to the server, used instead of the socket x11 would pick from `display`. */
    stream?: Duplex;
  }

  export function createClient(
    opts: CreateClientOptions,
    cb: (err: Error | undefined, display: X11Display) => void,
  ): X11Client;

  const x11: { createClient: typeof createClient };
  export default x11;
}

// x11's transport for local sockets that can carry file descriptors (MIT-SHM segments by fd).
declare module 'x11/lib/fdpass.js' {
  import type { Socket } from 'node:net';

  const fdpass: {
    /** A connecting socket ('connect' or 'error' follows), or null where descriptors cannot be passed. */
    connect(socketPath: string, options?: { receiveFds?: boolean }): Socket | null;
    available(): boolean;
  };
  export default fdpass;
}
