// An agent loop with OpenAI's computer-use tool on a sandbay sandbox. Each computer_call's `action`
// goes to POST /act unchanged (sandbox.actOpenAI); its answer is the computer_call_output's `output`.
//
// Run: SANDBAY_URL=… SANDBAY_API_KEY=… node examples/openai-agent.ts
// The model is scripted here (no network); with the OpenAI SDK, `callModel` becomes:
//   openai.responses.create({ model: 'computer-use-preview', truncation: 'auto', input,
//     previous_response_id, tools: [{ type: 'computer_use_preview', display_width: 1280,
//     display_height: 800, environment: 'linux' }] })
import { Client } from '../sdk/typescript/src/index.ts';
import { openNotes, readAnswer } from './setup-notes.ts';

type Item =
  | { type: 'message'; role: string; content: string }
  | {
      type: 'computer_call';
      call_id: string;
      action: Record<string, unknown>;
      pending_safety_checks: unknown[];
    }
  | { type: 'computer_call_output'; call_id: string; output: unknown };

/** A stand-in for the Responses API: a fixed sequence of computer calls, then a message. */
function scriptedModel(target: { x: number; y: number }): (input: Item[]) => Promise<{ output: Item[] }> {
  const script: Record<string, unknown>[] = [
    { type: 'screenshot' },
    { type: 'click', x: target.x, y: target.y, button: 'left' },
    { type: 'type', text: 'hello from openai' },
    { type: 'keypress', keys: ['ENTER'] },
  ];
  let step = 0;
  return async () => {
    const action = script[step++];
    if (!action)
      return { output: [{ type: 'message', role: 'assistant', content: 'Done: the line is saved.' }] };
    return {
      output: [{ type: 'computer_call', call_id: `call_${step}`, action, pending_safety_checks: [] }],
    };
  };
}

const client = new Client(); // SANDBAY_API_KEY and SANDBAY_URL from the environment
await using sandbox = await client.create(); // ephemeral: deleted when this scope ends
const callModel = scriptedModel(await openNotes(sandbox));

let input: Item[] = [
  {
    type: 'message',
    role: 'user',
    content: 'Type "hello from openai" into the notes terminal and press Return.',
  },
];
for (let turn = 0; turn < 20; turn++) {
  const { output } = await callModel(input);
  const calls = output.filter((i) => i.type === 'computer_call');
  if (calls.length === 0) break;
  input = [];
  for (const call of calls) {
    const screenshot = await sandbox.actOpenAI(call.action as Parameters<typeof sandbox.actOpenAI>[0]);
    input.push({ type: 'computer_call_output', call_id: call.call_id, output: screenshot });
    console.log(`${String(call.action.type)} → ${screenshot.type}`);
  }
}
console.log(`answer: ${await readAnswer(sandbox)}`);
