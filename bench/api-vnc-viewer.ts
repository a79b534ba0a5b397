// The viewer side of bench/api.ts's VNC measurement, in its own thread (as a real viewer is its own
// process): full raw framebuffer updates and small-update round trips, directly to the VM's VNC
// server and through the /vnc WebSocket proxy. One viewer at a time is connected (x11vnc serves
// its clients in one loop), alternating direct and proxied so neither gets the quieter moment.
import { connect } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';
import { RfbClient } from '../test/api-rfb-client.ts';

interface Job {
  vnc: { host: string; port: number; password: string };
  link: string;
  frames: number;
  roundTrips: number;
  rounds: number;
}

const job = workerData as Job;

async function openDirect(): Promise<RfbClient> {
  const c = await new Promise<RfbClient>((resolve, reject) => {
    const socket = connect({ host: job.vnc.host, port: job.vnc.port }, () =>
      resolve(RfbClient.overSocket(socket)),
    );
    socket.once('error', reject);
  });
  await c.handshake(job.vnc.password);
  return c;
}

async function openProxied(): Promise<RfbClient> {
  const ws = new WebSocket(job.link);
  const c = RfbClient.overWebSocket(ws);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  await c.handshake();
  return c;
}

/**
 * On one connection: full raw updates, each timed two ways — request to last byte (what a viewer
 * waits, including when x11vnc's polling loop picks the request up) and first byte to last byte
 * (the transfer through the path) — and the round trips of a 16×16 update.
 */
async function measure(open: () => Promise<RfbClient>): Promise<Sample> {
  const c = await open();
  c.requestUpdate(false);
  await c.readUpdate(); // warm-up
  let bytes = 0;
  let cycleMs = 0;
  let transferMs = 0;
  for (let i = 0; i < job.frames; i++) {
    c.mark();
    const t = performance.now();
    c.requestUpdate(false);
    bytes += (await c.readUpdate()).pixelBytes;
    const end = performance.now();
    cycleMs += end - t;
    transferMs += end - (c.firstByteAt ?? t);
  }
  const rtt: number[] = [];
  for (let i = 0; i < job.roundTrips; i++) {
    const t = performance.now();
    c.requestUpdate(false, { x: 0, y: 0, width: 16, height: 16 });
    await c.readUpdate();
    rtt.push(performance.now() - t);
  }
  c.close();
  return { cycle: bytes / (cycleMs / 1000), transfer: bytes / (transferMs / 1000), rtt };
}

interface Sample {
  cycle: number;
  transfer: number;
  rtt: number[];
}

const direct: Sample[] = [];
const proxied: Sample[] = [];
for (let round = 0; round < job.rounds; round++) {
  direct.push(await measure(openDirect));
  proxied.push(await measure(openProxied));
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
parentPort!.postMessage({
  direct: { cycle: mean(direct.map((d) => d.cycle)), transfer: mean(direct.map((d) => d.transfer)) },
  proxied: { cycle: mean(proxied.map((p) => p.cycle)), transfer: mean(proxied.map((p) => p.transfer)) },
  rtDirect: direct.flatMap((d) => d.rtt),
  rtProxy: proxied.flatMap((p) => p.rtt),
});
