// The Agent Trajectory Interchange Format (ATIF, Harbor's RFC 0001), v1.6, as a JSON Schema written
// from the published format (see /docs/trajectories.md). It is the one source of truth for the
// document sandbay exports: the route's response schema, the OpenAPI document and the tests' ajv
// validation all use it. Like the RFC's reference models, every object refuses unknown fields:
// anything sandbay adds lives in the `extra` objects the format provides for extensions.
import Type, { type Static } from 'typebox';

export const ATIF_SCHEMA_VERSION = 'ATIF-v1.6';

/** The format's extension point: any JSON object. */
const Extra = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

export const AtifTextPartSchema = Type.Object(
  {
    type: Type.Literal('text', { description: 'A text part.' }),
    text: Type.String({ description: 'The text.' }),
  },
  { additionalProperties: false },
);

export const AtifImagePartSchema = Type.Object(
  {
    type: Type.Literal('image', { description: 'An image part: the file lives beside `trajectory.json`.' }),
    source: Type.Object(
      {
        media_type: Type.String({ description: 'e.g. `image/png`.' }),
        path: Type.String({ description: 'Relative to `trajectory.json`, e.g. `images/step-0003.png`.' }),
      },
      { additionalProperties: false, description: 'Where the image is: its media type and relative path.' },
    ),
  },
  { additionalProperties: false },
);

export const AtifContentPartSchema = Type.Union([AtifTextPartSchema, AtifImagePartSchema]);
/** A message or observation content: a string, or (from v1.6) an array of content parts. */
const Content = (description: string) =>
  Type.Union([Type.String(), Type.Array(AtifContentPartSchema)], { description });

export const AtifToolCallSchema = Type.Object(
  {
    tool_call_id: Type.String({ description: 'Unique in the trajectory.' }),
    function_name: Type.String({ description: 'The function (tool) called.' }),
    arguments: Type.Record(Type.String(), Type.Unknown(), { description: 'The arguments of the call.' }),
  },
  { additionalProperties: false },
);

export const AtifObservationSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          source_call_id: Type.Optional(
            Type.Union([Type.String(), Type.Null()], {
              description: 'The `tool_call_id` this result answers (a tool call of its own step), or null.',
            }),
          ),
          content: Type.Optional(
            Type.Union([Content('The observed content.'), Type.Null()], {
              description: 'The observed content: a string, or (from v1.6) an array of content parts.',
            }),
          ),
          subagent_trajectory_ref: Type.Optional(
            Type.Array(Extra('A referenced trajectory.'), {
              description: 'References to trajectories of subagents (optional in ATIF; sandbay sets none).',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'The results observed after the step, one per answered tool call.' },
    ),
  },
  { additionalProperties: false },
);

export const AtifStepSchema = Type.Object(
  {
    step_id: Type.Integer({ minimum: 1, description: 'From 1, strictly sequential.' }),
    timestamp: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the step happened (ISO-8601).' }),
    ),
    source: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('agent')], {
      description:
        'Who produced the step: `system`, `user` (here the instruction) or `agent` (here each recorded action).',
    }),
    model_name: Type.Optional(Type.String({ description: 'The model of an agent step (agent steps only).' })),
    reasoning_effort: Type.Optional(
      Type.Union([Type.String(), Type.Number()], {
        description: 'The reasoning effort of the step (optional in ATIF).',
      }),
    ),
    message: Content("The step's message: a string, or (from v1.6) an array of content parts."),
    reasoning_content: Type.Optional(
      Type.String({ description: "The agent's reasoning for the step (agent steps only)." }),
    ),
    tool_calls: Type.Optional(
      Type.Array(AtifToolCallSchema, { description: 'The tool calls the step made (agent steps only).' }),
    ),
    observation: Type.Optional({
      ...AtifObservationSchema,
      description: 'What was observed after the tool calls (here the screenshot taken after the action).',
    }),
    metrics: Type.Optional(Extra('Metrics of the step (agent steps only).')),
    extra: Type.Optional(
      Extra('Extensions: sandbay puts the step `index` and the `screenshot` {url, bytes, sha256} here.'),
    ),
  },
  { additionalProperties: false },
);

export const AtifAgentSchema = Type.Object(
  {
    name: Type.String({
      description: "The agent's name (`sandbay-collector` for a recorded demonstration).",
    }),
    version: Type.String({ description: "The agent's version." }),
    model_name: Type.Optional(Type.String({ description: 'The model the agent ran (optional).' })),
    extra: Type.Optional(Extra('Extensions (sandbay: `kind: human_demonstration`).')),
  },
  { additionalProperties: false },
);

export const AtifFinalMetricsSchema = Type.Object(
  {
    total_prompt_tokens: Type.Optional(
      Type.Integer({ description: 'Prompt tokens over the whole trajectory.' }),
    ),
    total_completion_tokens: Type.Optional(
      Type.Integer({ description: 'Completion tokens over the whole trajectory.' }),
    ),
    total_cached_tokens: Type.Optional(
      Type.Integer({ description: 'Cached tokens over the whole trajectory.' }),
    ),
    total_cost_usd: Type.Optional(
      Type.Number({ description: 'Cost of the whole trajectory in US dollars.' }),
    ),
    total_steps: Type.Optional(Type.Integer({ description: 'Steps in the trajectory.' })),
    extra: Type.Optional(Extra('Extensions.')),
  },
  { additionalProperties: false },
);

export const AtifSchema = Type.Object(
  {
    schema_version: Type.String({
      pattern: '^ATIF-v1\\.[0-9]+$',
      description: 'The format version, `ATIF-v1.<minor>` (sandbay exports `ATIF-v1.6`).',
    }),
    session_id: Type.String({ description: 'The session the trajectory records (sandbay: the task id).' }),
    agent: { ...AtifAgentSchema, description: 'Who acted: `name` and `version`, optionally `model_name`.' },
    steps: Type.Array(AtifStepSchema, {
      minItems: 1,
      description: 'The steps in order (at least one; `step_id` from 1 without gaps).',
    }),
    notes: Type.Optional(Type.String({ description: 'Free-form notes for people.' })),
    final_metrics: Type.Optional({
      ...AtifFinalMetricsSchema,
      description: 'Totals over the trajectory (sandbay sets `total_steps`).',
    }),
    continued_trajectory_ref: Type.Optional(
      Type.String({
        description: 'A reference to a continued trajectory (optional in ATIF; sandbay sets none).',
      }),
    ),
    extra: Type.Optional(Extra('Extensions: sandbay puts the task (`extra.task`, as in `task.json`) here.')),
  },
  {
    additionalProperties: false,
    description: 'Agent Trajectory Interchange Format (ATIF-v1.6) document.',
  },
);

export type AtifDocument = Static<typeof AtifSchema>;
export type AtifStep = Static<typeof AtifStepSchema>;
export type AtifContentPart = Static<typeof AtifContentPartSchema>;
