// What most sandbox routes do first: find the caller's sandbox (404 for anyone else's) and record
// the request as activity on it (for the idle reaper of ephemeral sandboxes).
import type { FastifyRequest } from 'fastify';
import type { Sandbox } from '../../crds/index.ts';
import type { Guest } from '../../hosts/driver.ts';
import { principalOf, type Principal } from '../auth.ts';
import type { ApiContext } from './context.ts';
import { guestOf } from './guests.ts';
import { cachedSandbox, findSandbox } from './sandboxes.ts';

export async function sandboxOf(ctx: ApiContext, request: FastifyRequest): Promise<Sandbox> {
  // Every route using this declares `sandboxID` in its params schema, validated before the handler.
  const { sandboxID } = request.params as { sandboxID: string };
  const sandbox = await findSandbox(ctx, principalOf(request), sandboxID);
  // Not awaited: the write is throttled and must not add latency to the request.
  void ctx.activity.touch(sandbox.metadata.namespace!, sandbox.metadata.name);
  return sandbox;
}

/**
 * `sandboxOf` from a cache hit alone, without a promise (hot read routes): undefined when the cache
 * does not hold the caller's sandbox, and then `sandboxOf` decides.
 */
export function cachedSandboxOf(ctx: ApiContext, request: FastifyRequest): Sandbox | undefined {
  const { sandboxID } = request.params as { sandboxID: string };
  const sandbox = cachedSandbox(ctx, principalOf(request), sandboxID);
  if (sandbox) void ctx.activity.touch(sandbox.metadata.namespace!, sandbox.metadata.name);
  return sandbox;
}

/**
 * The guest of the caller's running sandbox, for data-plane calls. Its input calls and exec are
 * recorded while the sandbox is collecting a task (api/collector/).
 */
export async function guestFor(ctx: ApiContext, request: FastifyRequest): Promise<Guest> {
  const { sandboxID } = request.params as { sandboxID: string };
  return guestOfPrincipal(ctx, principalOf(request), sandboxID);
}

/**
 * `guestFor` for a caller already authenticated outside a route (a command on an open Cua
 * WebSocket): the principal's sandbox (404 for anyone else's), the call recorded as activity, the
 * guest with its deadlines, recorded while the sandbox collects a task.
 */
export async function guestOfPrincipal(
  ctx: ApiContext,
  principal: Principal,
  sandboxId: string,
): Promise<Guest> {
  const sandbox = await findSandbox(ctx, principal, sandboxId);
  // Not awaited: the write is throttled and must not add latency to the call.
  void ctx.activity.touch(sandbox.metadata.namespace!, sandbox.metadata.name);
  const guest = await guestOf(ctx, sandbox);
  return ctx.collections.guest(sandbox.metadata.namespace!, sandbox.metadata.name, guest);
}
