import { Command, Flags } from '@oclif/core';

export default class Mcp extends Command {
  static override summary =
    'Serve sandbay to MCP clients (agents): over stdio, or Streamable HTTP with --http.';
  static override description =
    'Tools: reserve, list_reservations, list_sandboxes, create_sandbox, delete_sandbox, screenshot (image), ' +
    'click, double_click, drag, move, scroll, type, key, hotkey, exec, read_file, write_file, display_info, ' +
    'window_tree. The key: SANDBAY_API_KEY; over HTTP, each request may bring its own as ' +
    '`Authorization: Bearer <key>`. The customer API: --url, else SANDBAY_URL.';
  static override examples = [
    'SANDBAY_API_KEY=… <%= config.bin %> mcp --url http://127.0.0.1:8080',
    '<%= config.bin %> mcp --http --port 8090 --url http://127.0.0.1:8080',
  ];

  static override flags = {
    url: Flags.string({ description: 'the customer API (default: SANDBAY_URL, else http://127.0.0.1:8080)' }),
    http: Flags.boolean({ description: 'serve Streamable HTTP at /mcp instead of stdio', default: false }),
    port: Flags.integer({ description: 'HTTP port (with --http)', default: 8090, min: 0, max: 65535 }),
    host: Flags.string({ description: 'HTTP address (with --http)', default: '127.0.0.1' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Mcp);
    const { serveHttp, serveStdio } = await import('../mcp/serve.ts');
    const baseUrl = flags.url ?? process.env.SANDBAY_URL ?? 'http://127.0.0.1:8080';
    const apiKey = process.env.SANDBAY_API_KEY || undefined;
    const version = this.config.version;
    if (!flags.http) {
      if (!apiKey) this.error('set SANDBAY_API_KEY (the MCP server acts with it)');
      // stdout carries the protocol: nothing else may be written there.
      const server = await serveStdio({ apiKey, baseUrl, version });
      await new Promise<void>((resolve) => {
        process.stdin.once('end', resolve);
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      return;
    }
    const server = await serveHttp({ apiKey, baseUrl, version, host: flags.host, port: flags.port });
    process.stderr.write(`${JSON.stringify({ msg: 'sandbay mcp is serving', url: server.url })}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
  }

  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
