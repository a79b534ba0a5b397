// What every MCP tool answers: a value as text (JSON when not a string), or, for an SDK error, a tool
// error naming the API's code (the agent can react to it), never a protocol error.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SandbayError } from '../../sdk/typescript/src/index.ts';

export const text = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
});

/** Runs a tool body; an SDK error becomes a tool error result with the API's code. */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    const message =
      err instanceof SandbayError
        ? `${err.code} (${err.status}): ${err.message}`
        : err instanceof Error
          ? `${(err as { code?: string }).code ?? err.name}: ${err.message}`
          : String(err);
    return { isError: true, content: [{ type: 'text', text: message }] };
  }
}
