// Where the admin key may travel: over TLS from anywhere, in clear text only from loopback (where
// nobody on a network can read it). A plain-HTTP request from another address is refused before
// its key is looked at: 403 `admin_tls_required`.
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { Socket } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether a peer address is on this machine's loopback (127.0.0.0/8, ::1, IPv4-mapped 127/8). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  if (isIPv4(address)) return LOOPBACK.check(address, 'ipv4');
  if (isIPv6(address)) return LOOPBACK.check(address, 'ipv6');
  return false;
}

/** Whether the admin key may be accepted from this peer over this transport. */
export function adminKeyTransportAllowed(peer: {
  remoteAddress: string | undefined;
  encrypted: boolean;
}): boolean {
  return peer.encrypted || isLoopback(peer.remoteAddress);
}

/** The peer of a request's socket: a TLS socket says `encrypted`. */
export function peerOf(socket: Socket): { remoteAddress: string | undefined; encrypted: boolean } {
  return {
    remoteAddress: socket.remoteAddress,
    encrypted: (socket as { encrypted?: boolean }).encrypted === true,
  };
}
