// The RFC validator itself: it accepts documents that keep RFC 0001's rules and names each rule a
// document breaks. The documents are ours, shaped like the RFC's Section IV example.
import { describe, expect, it } from 'vitest';
import { atifRfcProblems, isIso8601 } from './atif-rfc-validator.ts';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- documents are mutated freely

function valid(): Doc {
  return {
    schema_version: 'ATIF-v1.6',
    session_id: 's-1',
    agent: { name: 'demo-agent', version: '1.0.0', model_name: 'some-model', extra: {} },
    notes: 'two tool calls in one step',
    final_metrics: { total_prompt_tokens: 10, total_cost_usd: 0.01, total_steps: 3, extra: {} },
    steps: [
      { step_id: 1, timestamp: '2025-10-11T10:30:00Z', source: 'user', message: 'Open the file' },
      {
        step_id: 2,
        timestamp: '2025-10-11T10:30:02.500+02:00',
        source: 'agent',
        model_name: 'some-model',
        reasoning_effort: 'low',
        reasoning_content: 'click, then look',
        message: [{ type: 'text', text: 'I click it.' }],
        tool_calls: [
          { tool_call_id: 'c1', function_name: 'click', arguments: { x: 1, y: 2 } },
          { tool_call_id: 'c2', function_name: 'screenshot', arguments: {} },
        ],
        observation: {
          results: [
            { source_call_id: 'c1', content: 'clicked' },
            {
              source_call_id: 'c2',
              content: [{ type: 'image', source: { media_type: 'image/png', path: 'images/a.png' } }],
            },
            { content: 'no call' },
          ],
        },
        metrics: {
          prompt_tokens: 10,
          completion_tokens: 2,
          logprobs: [-0.1, -0.2],
          completion_token_ids: [1, 2],
        },
        extra: { any: 'thing' },
      },
      {
        step_id: 3,
        source: 'system',
        message: 'checkpoint',
        observation: { results: [{ content: 'saved' }] },
      },
    ],
    extra: { task: 'x' },
  };
}

describe('the ATIF validator written from RFC 0001', () => {
  it('accepts a document that keeps every rule', () => {
    expect(atifRfcProblems(valid(), { files: new Set(['images/a.png']), imageDir: 'images/' })).toEqual([]);
  });

  it.each<[string, (d: Doc) => void, RegExp]>([
    ['a missing session_id before v1.7', (d) => delete d.session_id, /trajectory\.session_id: required/],
    ['a missing agent.version', (d) => delete d.agent.version, /agent\.version: required/],
    ['no steps', (d) => (d.steps = []), /steps: must hold at least one step/],
    ['a gap in step_id', (d) => (d.steps[2].step_id = 4), /steps\[2\]\.step_id: expected 3/],
    [
      'step_ids from 0',
      (d) => d.steps.forEach((s: Doc, i: number) => (s.step_id = i)),
      /steps\[0\]\.step_id: expected 1/,
    ],
    ['an unknown source', (d) => (d.steps[0].source = 'tool'), /steps\[0\]\.source: must be one of/],
    ['a missing source', (d) => delete d.steps[0].source, /steps\[0\]\.source: required/],
    ['a missing message', (d) => delete d.steps[0].message, /steps\[0\]\.message: required/],
    [
      'a timestamp that is not ISO 8601',
      (d) => (d.steps[0].timestamp = '11/10/2025 10:30'),
      /steps\[0\]\.timestamp: must be an ISO 8601/,
    ],
    [
      'a timestamp out of range',
      (d) => (d.steps[0].timestamp = '2025-02-30T10:00:00Z'),
      /steps\[0\]\.timestamp/,
    ],
    [
      'tool_calls on a user step',
      (d) => (d.steps[0].tool_calls = []),
      /steps\[0\]\.tool_calls: only applicable when source is "agent"/,
    ],
    ['metrics on a system step', (d) => (d.steps[2].metrics = {}), /steps\[2\]\.metrics: only applicable/],
    [
      'model_name on a user step',
      (d) => (d.steps[0].model_name = 'm'),
      /steps\[0\]\.model_name: only applicable/,
    ],
    [
      'reasoning_content on a user step',
      (d) => (d.steps[0].reasoning_content = 'r'),
      /steps\[0\]\.reasoning_content: only/,
    ],
    [
      'a source_call_id naming no tool call of its step',
      (d) => (d.steps[1].observation.results[0].source_call_id = 'c9'),
      /results\[0\]\.source_call_id: "c9" is not a tool_call_id of step 2/,
    ],
    [
      'a source_call_id on a step without tool calls',
      (d) => (d.steps[2].observation.results[0].source_call_id = 'c1'),
      /steps\[2\]\.observation\.results\[0\]\.source_call_id/,
    ],
    [
      'a repeated tool_call_id',
      (d) => (d.steps[1].tool_calls[1].tool_call_id = 'c1'),
      /tool_calls\[1\]\.tool_call_id: "c1" repeats/,
    ],
    [
      'arguments that are not an object',
      (d) => (d.steps[1].tool_calls[0].arguments = '{"x":1}'),
      /arguments: must be an object/,
    ],
    [
      'a field outside the schema',
      (d) => (d.steps[1].tool_calls[0].args = {}),
      /tool_calls\[0\]\.args: unexpected field/,
    ],
    ['a root field outside the schema', (d) => (d.task = {}), /trajectory\.task: unexpected field/],
    [
      'an image part with text',
      (d) => (d.steps[1].observation.results[1].content[0].text = 'x'),
      /content\[0\]\.text: must be omitted/,
    ],
    [
      'an image part without a source',
      (d) => delete d.steps[1].observation.results[1].content[0].source,
      /content\[0\]\.source: required/,
    ],
    ['a text part without text', (d) => delete d.steps[1].message[0].text, /message\[0\]\.text: required/],
    [
      'an image media type outside the four',
      (d) => (d.steps[1].observation.results[1].content[0].source.media_type = 'image/bmp'),
      /media_type: must be one of/,
    ],
    [
      'an image path without media_type',
      (d) => delete d.steps[1].observation.results[1].content[0].source.media_type,
      /media_type: required/,
    ],
    ['content parts before v1.6', (d) => (d.schema_version = 'ATIF-v1.5'), /message: added in ATIF-v1\.6/],
    [
      'a v1.7 field in a v1.6 document',
      (d) => (d.steps[1].llm_call_count = 1),
      /llm_call_count: added in ATIF-v1\.7/,
    ],
    ['an unknown version', (d) => (d.schema_version = 'ATIF-v2.0'), /schema_version: must be one of/],
    [
      'llm_call_count 0 with metrics',
      (d) => ((d.schema_version = 'ATIF-v1.7'), (d.steps[1].llm_call_count = 0)),
      /steps\[1\]\.metrics: must be absent when llm_call_count is 0/,
    ],
  ])('rejects %s', (_, change, problem) => {
    const doc = valid();
    change(doc);
    expect(atifRfcProblems(doc).join('\n')).toMatch(problem);
  });

  it('checks that every relative image path names a file beside the trajectory, in images/', () => {
    const doc = valid();
    expect(atifRfcProblems(doc, { files: new Set() })).toEqual([
      'trajectory.steps[1].observation.results[1].content[0].source.path: referenced image file does not exist: images/a.png',
    ]);
    doc.steps[1].observation.results[1].content[0].source.path = 'shots/a.png';
    expect(atifRfcProblems(doc, { files: new Set(['shots/a.png']), imageDir: 'images/' })).toEqual([
      'trajectory.steps[1].observation.results[1].content[0].source.path: relative image path "shots/a.png" is not in images/ (Image Storage Convention)',
    ]);
    doc.steps[1].observation.results[1].content[0].source.path = 'https://example.invalid/a.png';
    expect(atifRfcProblems(doc, { files: new Set(), imageDir: 'images/' })).toEqual([]);
  });

  it('holds v1.7 subagent references to what they can resolve', () => {
    const doc = valid();
    doc.schema_version = 'ATIF-v1.7';
    doc.steps[2].observation.results[0].subagent_trajectory_ref = [
      { session_id: 's-1' },
      { trajectory_id: 'sub' },
    ];
    expect(atifRfcProblems(doc).join('\n')).toMatch(
      /subagent_trajectory_ref\[0\]: must set trajectory_id or trajectory_path/,
    );
    expect(atifRfcProblems(doc).join('\n')).toMatch(
      /subagent_trajectory_ref\[1\]\.trajectory_id: names no embedded/,
    );
    doc.steps[2].observation.results[0].subagent_trajectory_ref = [{ trajectory_id: 'sub' }];
    doc.subagent_trajectories = [
      {
        schema_version: 'ATIF-v1.7',
        trajectory_id: 'sub',
        agent: { name: 'a', version: '1' },
        steps: [{ step_id: 2, source: 'user', message: '' }],
      },
    ];
    expect(atifRfcProblems(doc)).toEqual([
      'trajectory.subagent_trajectories[0].steps[0].step_id: expected 1 (sequential from 1), got 2',
    ]);
  });

  it('reads ISO 8601 as the RFC shows it: dates, times, fractions, offsets', () => {
    for (const t of [
      '2025-10-16T14:30:00Z',
      '2025-10-16T14:30:00.123456+00:00',
      '2025-10-16',
      '2025-10-16 14:30',
      '2024-02-29T00:00:00-0530',
    ])
      expect(isIso8601(t), t).toBe(true);
    for (const t of [
      '2025-13-01',
      '2025-10-16T24:00:00Z',
      '20251016',
      'yesterday',
      '2025-10-16T14:30:00+25:00',
    ])
      expect(isIso8601(t), t).toBe(false);
  });
});
