// Request validation with the route schemas themselves (TypeBox, compiled once per route):
// JSON bodies are checked as sent (no type coercion: `"5"` is not an integer); query strings and
// path parameters are converted from text first (`?show_cursor=true` is a boolean). Defaults from
// the schemas are filled in, so handlers see the spec's defaults (button `left`, quality 80, …).
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';

/** True when a schema declares a default anywhere (only then is there anything to fill in). */
function hasDefaults(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  if ('default' in schema) return true;
  return Object.values(schema).some((v) => hasDefaults(v));
}

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  const convert = httpPart !== 'body';
  const defaults = hasDefaults(schema);
  return (input: unknown) => {
    // The common case, a valid request without defaults to fill (path parameters), costs one check.
    if (!defaults && check.Check(input)) return { value: input };
    const converted = convert ? Value.Convert(schema, input) : input;
    const value = defaults ? Value.Default(schema, converted) : converted;
    if (check.Check(value)) return { value };
    const errors = check.Errors(value) as unknown as FastifySchemaValidationError[];
    return { error: errors.slice(0, 5) as unknown as Error };
  };
};
