// exec on the caller's sandbox, for both wire paths (`…/exec`, `…/exec_ax`). The answer carries
// `Server-Timing: vm;dur=…, app;dur=…`: how long the VM took, and how long the server had the
// request until then, so that a client can tell the VM's time from the network's and the server's
// (bench/client-view.ts accounts for an exec's milliseconds with it).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecResult } from '../../hosts/driver.ts';
import type { ApiContext } from './context.ts';
import { guestFor } from './request.ts';

export async function execOnSandbox(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  exec: { command: string; timeoutS: number; ax: boolean },
): Promise<ExecResult> {
  const guest = await guestFor(ctx, request);
  const t0 = performance.now();
  const result = await guest.exec(exec.command, { timeoutMs: exec.timeoutS * 1000, agent: exec.ax });
  const vm = performance.now() - t0;
  reply.header('server-timing', `vm;dur=${vm.toFixed(2)}, app;dur=${reply.elapsedTime.toFixed(2)}`);
  return result;
}
