// Request logs: one line in, one line out, with the request id bound as `reqId` (as Fastify binds
// it to `request.log`). The URL is logged without its query, which may carry a viewer token.
// The lines are written here once, for Fastify's requests and for the answers api/hot-read.ts
// gives outside Fastify, so both look the same in the log.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

export function logIncoming(log: FastifyBaseLogger, method: string, url: string): void {
  log.info({ method, url: url.split('?')[0] }, 'incoming request');
}

export function logCompleted(
  log: FastifyBaseLogger,
  statusCode: number,
  responseTime: number,
  error?: Error | null,
): void {
  const line = { statusCode, responseTime };
  if (error) log.error({ ...line, err: error }, 'request errored');
  else log.info(line, 'request completed');
}

export class RequestLogs extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    logIncoming(request.log, request.method, request.url);
  }
  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    logCompleted(error ? reply.log : request.log, reply.statusCode, reply.elapsedTime, error);
  }
}
