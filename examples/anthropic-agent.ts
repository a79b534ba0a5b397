// An agent loop with Anthropic's computer-use tool on a sandbay sandbox. The tool_use inputs go to
// POST /act unchanged (sandbox.actAnthropic) and its answer is the tool_result's content as is.
//
// Run: SANDBAY_URL=… SANDBAY_API_KEY=… node examples/anthropic-agent.ts
// The model is scripted here (no network); with the Anthropic SDK, `callModel` becomes:
//   anthropic.beta.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages,
//     tools: [{ type: 'computer_20250124', name: 'computer', display_width_px: 1280, display_height_px: 800 }],
//     betas: ['computer-use-2025-01-24'] })
import { Client } from '../sdk/typescript/src/index.ts';
import { openNotes, readAnswer } from './setup-notes.ts';

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: unknown[] };
interface Message {
  role: 'user' | 'assistant';
  content: string | Block[];
}
interface ModelResponse {
  stop_reason: 'tool_use' | 'end_turn';
  content: Block[];
}

/** A stand-in for the Messages API: a fixed sequence of computer tool calls, then a final answer. */
function scriptedModel(target: { x: number; y: number }): (messages: Message[]) => Promise<ModelResponse> {
  const script: Record<string, unknown>[] = [
    { action: 'screenshot' },
    { action: 'left_click', coordinate: [target.x, target.y] },
    { action: 'type', text: 'hello from claude' },
    { action: 'key', text: 'Return' },
  ];
  let step = 0;
  return async () => {
    const input = script[step++];
    if (!input)
      return { stop_reason: 'end_turn', content: [{ type: 'text', text: 'Done: the line is saved.' }] };
    return {
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', id: `toolu_${step}`, name: 'computer', input }],
    };
  };
}

const client = new Client(); // SANDBAY_API_KEY and SANDBAY_URL from the environment
await using sandbox = await client.create(); // ephemeral: deleted when this scope ends
const callModel = scriptedModel(await openNotes(sandbox));

const messages: Message[] = [
  { role: 'user', content: 'Type "hello from claude" into the notes terminal and press Return.' },
];
for (let turn = 0; turn < 20; turn++) {
  const response = await callModel(messages);
  messages.push({ role: 'assistant', content: response.content });
  if (response.stop_reason !== 'tool_use') break;
  const results: Block[] = [];
  for (const block of response.content) {
    if (block.type !== 'tool_use') continue;
    const result = await sandbox.actAnthropic(block.input as Parameters<typeof sandbox.actAnthropic>[0]);
    results.push({ type: 'tool_result', tool_use_id: block.id, content: result.content });
    console.log(`${String(block.input.action)} → ${result.content.map((c) => c.type).join(', ')}`);
  }
  messages.push({ role: 'user', content: results });
}
console.log(`answer: ${await readAnswer(sandbox)}`);
