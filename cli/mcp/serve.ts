// `sandbay mcp`'s two transports. stdio: one MCP server for the process, acting with the key from
// the environment. Streamable HTTP (stateless: a fresh server and transport per request, as the MCP
// SDK's stateless example does): each request acts with its own `Authorization: Bearer` key, or the
// environment's when it has none, so one endpoint can serve several accounts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Client } from '../../sdk/typescript/src/index.ts';
import { registerForkPauseTools } from './fork-pause-tools.ts';
import { registerStreamTools } from './stream-tools.ts';
import { registerSandbayTools } from './tools.ts';
import { registerNetworkTools } from './network-tools.ts';

export const MCP_PATH = '/mcp';

export function buildMcpServer(client: Client, version: string): McpServer {
  const server = new McpServer({ name: 'sandbay', version });
  registerSandbayTools(server, client);
  registerNetworkTools(server, client);
  registerForkPauseTools(server, client);
  registerStreamTools(server, client);
  return server;
}

export async function serveStdio(o: {
  apiKey: string;
  baseUrl: string;
  version: string;
}): Promise<McpServer> {
  const server = buildMcpServer(new Client({ apiKey: o.apiKey, baseUrl: o.baseUrl }), o.version);
  await server.connect(new StdioServerTransport());
  return server;
}

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

function bearer(req: http.IncomingMessage): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

function jsonError(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function serveHttp(o: {
  apiKey: string | undefined;
  baseUrl: string;
  version: string;
  host: string;
  port: number;
}): Promise<McpHttpServer> {
  const listener = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== MCP_PATH) return jsonError(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
    // Stateless: no session to resume (GET) or end (DELETE).
    if (req.method !== 'POST') return jsonError(res, 405, 'method not allowed: POST JSON-RPC messages');
    const apiKey = bearer(req) ?? o.apiKey;
    if (!apiKey) return jsonError(res, 401, 'send Authorization: Bearer <sandbay key>');
    const server = buildMcpServer(new Client({ apiKey, baseUrl: o.baseUrl }), o.version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((err: unknown) => {
        if (!res.headersSent) jsonError(res, 500, err instanceof Error ? err.message : String(err));
      });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(o.port, o.host, () => resolve());
  });
  const { port } = listener.address() as AddressInfo;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        listener.closeAllConnections();
        listener.close(() => resolve());
      }),
  };
}
