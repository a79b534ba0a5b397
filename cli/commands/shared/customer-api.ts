// The customer API as the CLI's customer commands (`tasks export`, `evaluations …`) reach it: an
// account key from SANDBAY_API_KEY, the server from --url, else SANDBAY_URL, else the local default.
import { Command, Flags } from '@oclif/core';

export const urlFlag = Flags.string({
  description: 'the customer API (default: SANDBAY_URL, else http://127.0.0.1:8080)',
});

export class CustomerApi {
  readonly base: string;
  readonly #key: string;

  constructor(cmd: Command, url: string | undefined) {
    const key = process.env.SANDBAY_API_KEY;
    if (!key) cmd.error('set SANDBAY_API_KEY (an account key)');
    this.#key = key;
    this.base = (url ?? process.env.SANDBAY_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  }

  /** The answer of `method path`; a status other than 2xx is an Error saying the API's code and message. */
  async call(method: string, path: string, body?: unknown): Promise<Response> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.#key}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (res.ok) return res;
    const answer = (await res.json().catch(() => ({}))) as { error?: string; message?: string };
    throw new Error(`${res.status} ${answer.error ?? res.statusText}: ${answer.message ?? ''}`.trim());
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await (await this.call(method, path, body)).json()) as T;
  }
}

/** A customer command: a failure prints one `error:` line (the API's code and message) and exits 1. */
export abstract class CustomerCommand extends Command {
  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
