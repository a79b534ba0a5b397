// What a sim VM runs that outlives one call: the servers its shell's `serve PORT [DIR]` started (an
// HTTP server of the VM's in-memory disk that also echoes WebSocket messages), reached through
// forwardPort as a real HTTP connection over an in-process stream pair; and the streaming execs in
// flight. Power-off ends all of them, as it ends a real VM's processes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { posix } from 'node:path';
import { duplexPair, type Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { DriverError } from '../driver.ts';
import type { SimDisk } from './disk.ts';

export class SimNetwork {
  readonly #servers = new Map<number, Server>();
  readonly #open = new Set<Duplex>();
  #power = new AbortController();

  /** Aborted at power-off: streaming execs end with it. */
  get poweredOff(): AbortSignal {
    return this.#power.signal;
  }

  /** Starts `serve`'s server on `port`; an error line when the port is taken. */
  serve(port: number, dir: string, disk: SimDisk): string | undefined {
    if (this.#servers.has(port)) return `port ${port}: address already in use`;
    const server = createServer((req, res) => serveFile(disk, dir, req, res));
    const echo = new WebSocketServer({ noServer: true });
    server.on('upgrade', (req, socket, head) =>
      echo.handleUpgrade(req, socket, head, (ws) =>
        ws.on('message', (data, binary) => ws.send(data, { binary })),
      ),
    );
    this.#servers.set(port, server);
    return undefined;
  }

  /** A connection to `port`, as a program in the VM would open to 127.0.0.1. */
  connect(port: number, vmName: string): Duplex {
    const server = this.#servers.get(port);
    if (!server) throw new DriverError('refused', `nothing listens on 127.0.0.1:${port} in sim VM ${vmName}`);
    const [ours, theirs] = duplexPair();
    for (const end of [ours, theirs]) {
      this.#open.add(end);
      end.once('close', () => this.#open.delete(end));
    }
    server.emit('connection', theirs);
    return ours;
  }

  /** The VM stopped: its servers, connections and streams end. */
  powerOff(): void {
    this.#power.abort(new DriverError('unreachable', 'the VM stopped'));
    this.#power = new AbortController();
    for (const end of this.#open) end.destroy();
    for (const server of this.#servers.values()) server.close();
    this.#servers.clear();
  }
}

/** GET of a file under `dir` (a directory lists its entries, one per line); 404 otherwise. */
function serveFile(disk: SimDisk, dir: string, req: IncomingMessage, res: ServerResponse): void {
  const path = posix.join(dir, decodeURIComponent(new URL(req.url ?? '/', 'http://sim').pathname));
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  if (disk.isDir(path)) {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(disk.list(path).join('\n'));
    return;
  }
  const data = disk.files.get(path);
  if (!data) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`no file ${path}\n`);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': data.length });
  res.end(req.method === 'HEAD' ? undefined : data);
}
