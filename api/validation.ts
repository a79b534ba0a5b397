// Request validation with the route schemas themselves (TypeBox, compiled once per route):
// JSON bodies are checked as sent (no type coercion: `"5"` is not an integer); query strings and
// path parameters are converted from text first (`?show_cursor=true` is a boolean). Defaults from
// the schemas are filled in, so handlers see the spec's defaults (button `left`, quality 80, …).
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  const convert = httpPart !== 'body';
  return (input: unknown) => {
    const converted = convert ? Value.Convert(schema, input) : input;
    const value = Value.Default(schema, converted);
    if (check.Check(value)) return { value };
    const errors = check.Errors(value) as unknown as FastifySchemaValidationError[];
    return { error: errors.slice(0, 5) as unknown as Error };
  };
};
