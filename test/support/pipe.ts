// Two sockets joined both ways, each ending the other: the one relay the test bridges between
// network namespaces use (netns-relay.ts, egress-world.ts, browser.ts).
import type { Socket } from 'node:net';

export function joinSockets(a: Socket, b: Socket): void {
  a.pipe(b).pipe(a);
  const end = () => (a.destroy(), b.destroy());
  a.on('error', end).on('close', end);
  b.on('error', end).on('close', end);
}
