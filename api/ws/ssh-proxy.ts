// The SSH WebSocket (`/v1/sandboxes/{id}/ssh`, account or reservation key): relays the VM's sshd
// byte for byte; the SSH client on the other end speaks SSH through it and logs in with the VM's
// own credentials (GET /v1/sandboxes/{id}/ssh/credentials). The key is checked like on every other
// sandbox endpoint: one account never reaches another's.
import type { IncomingMessage } from 'node:http';
import { authenticate } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from '../services/context.ts';
import { endpointOf, guestOf } from '../services/guests.ts';
import { findSandbox } from '../services/sandboxes.ts';
import { connectGuest, type ProxyTarget } from './connect.ts';

export async function sshTarget(
  ctx: ApiContext,
  request: IncomingMessage,
  sandboxId: string,
): Promise<ProxyTarget> {
  const principal = await authenticate(ctx.reads, request.headers.authorization, ctx.clock.now());
  // An evaluation agent's key: SSH would act past the recording of its trajectory.
  if (principal.kind === 'sandbox') throw new ApiError('sandbox_key_not_allowed');
  const sandbox = await findSandbox(ctx, principal, sandboxId);
  const guest = await guestOf(ctx, sandbox);
  const endpoint = await endpointOf('SSH', () => guest.ssh());
  // Its banner waits in the connection's buffer until the relay starts.
  const vm = await connectGuest(guest, 'ssh', endpoint);
  return { kind: 'ssh', sandbox, vm };
}
