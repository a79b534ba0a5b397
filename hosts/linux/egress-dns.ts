// The DNS answerer of one VM: the VM's only resolver (its /etc/resolv.conf names its link's host end,
// vm-mount-ns.ts), listening there on port 53 (UDP and TCP) while the VM's egress policy lets
// anything out. A name the policy allows is asked of the operator's resolvers and the answer
// relayed unchanged; in mode `allow`, the IPv4 addresses in it join the VM's `answers` set (egress.ts)
// before the VM reads them, so the connection that follows is let out. A name it does not allow is
// NXDOMAIN, and nothing is asked upstream.
//
// It runs in the control plane's process and answers a tenant, so it is bounded: only its VM's
// address is answered, at most MAX_IN_FLIGHT questions are upstream at once (more are dropped, as
// a busy resolver drops them; the VM's resolver asks again), every upstream question has a deadline,
// and a TCP connection that sends nothing for IDLE_MS is closed.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import type { EventEmitter } from 'node:events';
import { createConnection, createServer, isIPv6, type Server, type Socket } from 'node:net';
import dnsPacket from 'dns-packet';
import type { EgressPolicy } from '../../crds/egress.ts';
import { allowAnswers } from './egress.ts';
import type { VmLink } from './vm-network.ts';

const MAX_IN_FLIGHT = 64;
const MAX_TCP_CONNECTIONS = 16;
const UPSTREAM_DEADLINE_MS = 4000;
const IDLE_MS = 10_000;
const MAX_DNS_MESSAGE = 65_535;
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3 } as const;

/** Whether `name` (lower case, no trailing dot) is allowed by the policy's domain rules. */
export function nameAllowed(policy: EgressPolicy, name: string): boolean {
  if (policy.mode === 'all') return true;
  if (policy.mode === 'none') return false;
  return policy.allow.some((rule) =>
    rule.startsWith('*.') ? name.endsWith(rule.slice(1)) && name.length > rule.length - 1 : name === rule,
  );
}

export class VmDnsAnswerer {
  readonly #link: VmLink;
  readonly #upstreams: string[];
  readonly #log: (msg: string) => void;
  #policy: EgressPolicy;
  #udp: UdpSocket | undefined;
  #tcp: Server | undefined;
  #inFlight = 0;

  constructor(link: VmLink, policy: EgressPolicy, upstreams: string[], log: (msg: string) => void) {
    this.#link = link;
    this.#policy = policy;
    this.#upstreams = upstreams;
    this.#log = log;
  }

  set policy(p: EgressPolicy) {
    this.#policy = p;
  }

  /** Binds port 53 on the link's host end (UDP and TCP). */
  async start(): Promise<void> {
    const udp = createSocket({ type: 'udp4' });
    udp.on('message', (msg, from) => {
      if (from.address !== this.#link.vmIp) return;
      void this.#answer(msg, false)
        .then((out) => {
          // Closed meanwhile (the policy let nothing out any more, or the VM went): nothing to send on.
          if (out && this.#udp === udp) udp.send(out, from.port, from.address);
        })
        .catch((e: unknown) => this.#log(`DNS answerer on ${this.#link.hostIp}: ${String(e)}`));
    });
    udp.on('error', (e) => this.#log(`DNS answerer on ${this.#link.hostIp}: ${e.message}`));
    const at = { host: this.#link.hostIp, port: 53, exclusive: true };
    await listening(udp, (done) => udp.bind({ address: at.host, port: at.port, exclusive: true }, done));
    const tcp = createServer((socket) => this.#serveTcp(socket));
    tcp.maxConnections = MAX_TCP_CONNECTIONS;
    try {
      await listening(tcp, (done) => tcp.listen(at, done));
    } catch (e) {
      udp.close();
      throw e;
    }
    this.#udp = udp;
    this.#tcp = tcp;
  }

  async close(): Promise<void> {
    const udp = this.#udp;
    const tcp = this.#tcp;
    this.#udp = undefined;
    this.#tcp = undefined;
    udp?.close();
    if (tcp) await new Promise<void>((resolve) => tcp.close(() => resolve()));
  }

  #serveTcp(socket: Socket): void {
    if (socket.remoteAddress !== this.#link.vmIp) return void socket.destroy();
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    readFrames(socket, (msg) => {
      void this.#answer(msg, true)
        .then((out) => {
          if (out && !socket.destroyed) socket.write(frame(out));
        })
        .catch(() => socket.destroy());
    });
  }

  /** The answer to one question, or undefined to drop it. */
  async #answer(query: Buffer, tcp: boolean): Promise<Buffer | undefined> {
    let packet: dnsPacket.DecodedPacket;
    try {
      packet = dnsPacket.decode(query);
    } catch {
      return undefined;
    }
    const question = packet.questions?.[0];
    if (packet.type !== 'query' || !question) return undefined;
    const name = question.name.toLowerCase().replace(/\.$/, '');
    if (!nameAllowed(this.#policy, name)) return reply(packet, RCODE.NXDOMAIN);
    if (this.#inFlight >= MAX_IN_FLIGHT) return undefined;
    this.#inFlight++;
    try {
      const answer = await this.#askUpstream(query, tcp);
      if (!answer) return reply(packet, RCODE.SERVFAIL);
      // The policy may have changed while the question was upstream: it decides again.
      const policy = this.#policy;
      if (!nameAllowed(policy, name)) return reply(packet, RCODE.NXDOMAIN);
      if (policy.mode === 'allow') await this.#allow(answer);
      return answer;
    } catch (e) {
      this.#log(`DNS answerer on ${this.#link.hostIp}: ${name}: ${String(e)}`);
      return reply(packet, RCODE.SERVFAIL);
    } finally {
      this.#inFlight--;
    }
  }

  /** Puts the answer's IPv4 addresses into the VM's set, for the shortest TTL among them. */
  async #allow(answer: Buffer): Promise<void> {
    const records = (dnsPacket.decode(answer).answers ?? []).filter(
      (a): a is dnsPacket.StringAnswer => a.type === 'A',
    );
    const addresses = [...new Set(records.map((a) => String(a.data)))];
    const ttl = Math.min(...records.map((a) => a.ttl ?? 0));
    await allowAnswers(this.#link, addresses, ttl);
  }

  /** The first answer of the upstreams, tried in order, each within its deadline. */
  async #askUpstream(query: Buffer, tcp: boolean): Promise<Buffer | undefined> {
    for (const server of this.#upstreams) {
      const answer = await (tcp ? askTcp : askUdp)(server, query).catch(() => undefined);
      if (answer) return answer;
    }
    return undefined;
  }
}

/** Resolves once `start` has the socket listening; rejects with its error (the port is taken). */
function listening(target: EventEmitter, start: (done: () => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    target.once('error', reject);
    start(() => {
      target.off('error', reject);
      resolve();
    });
  });
}

function reply(q: dnsPacket.DecodedPacket, rcode: number): Buffer {
  return dnsPacket.encode({
    type: 'response',
    id: q.id ?? 0,
    flags: (q.flags ?? 0) | dnsPacket.RECURSION_AVAILABLE | rcode,
    questions: q.questions ?? [],
  });
}

function askUdp(server: string, query: Buffer): Promise<Buffer> {
  const id = query.readUInt16BE(0);
  const socket = createSocket(isIPv6(server) ? 'udp6' : 'udp4');
  return new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${server}: no answer`)), UPSTREAM_DEADLINE_MS);
    socket.on('error', reject);
    socket.on('message', (msg, from) => {
      if (from.address === server && msg.length >= 2 && msg.readUInt16BE(0) === id) {
        clearTimeout(timer);
        resolve(msg);
      }
    });
    socket.send(query, 53, server);
  }).finally(() => socket.close());
}

function askTcp(server: string, query: Buffer): Promise<Buffer> {
  const socket = createConnection({ host: server, port: 53 });
  return new Promise<Buffer>((resolve, reject) => {
    socket.setTimeout(UPSTREAM_DEADLINE_MS, () => reject(new Error(`${server}: no answer`)));
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`${server}: closed`)));
    readFrames(socket, resolve);
    socket.write(frame(query));
  }).finally(() => socket.destroy());
}

/** DNS over TCP: each message after its length (two bytes). */
function frame(msg: Buffer): Buffer {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(msg.length);
  return Buffer.concat([len, msg]);
}

function readFrames(socket: Socket, onMessage: (msg: Buffer) => void): void {
  let buf = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 2) {
      const len = buf.readUInt16BE(0);
      if (len === 0 || len > MAX_DNS_MESSAGE) return void socket.destroy();
      if (buf.length < 2 + len) return;
      onMessage(buf.subarray(2, 2 + len));
      buf = buf.subarray(2 + len);
    }
  });
}
