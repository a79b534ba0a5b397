// The shapes of Cua's computer-server protocol (github trycua/cua, libs/python/computer-server):
// a message is `{command, params}`; its answer is `{success: true, ...the handler's fields}`, or
// `{success: false, error: "<sentence>"}` (a handler's own `success: false` wins over the envelope's
// `true`). sandbay answers the same, with its error code beside the sentence as `code` (Cua's own
// refusals of a backend's unsupported commands carry one too).
import type { Static, TObject } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Guest } from '../../../hosts/driver.ts';

/** `version` answers it: the protocol Cua's server and SDK speak (computer_server/main.py). */
export const PROTOCOL_VERSION = 1;

/** Largest message either way, as Cua's server and SDK set it (WEBSOCKET_MAX_SIZE, max_size). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A command's own fields of a successful answer (`success` is added around them). */
export type CuaResult = Record<string, unknown>;

/** An answer on the wire. */
export interface CuaAnswer {
  success: boolean;
  error?: string;
  /** sandbay's error code (docs/api.md, Errors) of a failed command. */
  code?: string;
  [field: string]: unknown;
}

/** A parameter Cua's handler would have refused (its TypeError or ValueError): nothing was done. */
export class CuaParamError extends Error {
  override name = 'CuaParamError';
}

export interface CuaCommand {
  /** The params object, checked before anything runs; fields it does not name are ignored, as Cua does. */
  readonly check: (params: unknown) => string | undefined;
  /** The params' schema (documented by GET …/cua/commands). */
  readonly params: TObject;
  run(guest: Guest, params: unknown): Promise<CuaResult>;
}

/**
 * A command whose params match `params` (TypeBox, compiled once). `check` answers the first problem
 * as `params/<field> <what is wrong>`, the way sandbay's routes name a field.
 */
export function command<S extends TObject>(
  params: S,
  run: (guest: Guest, p: Static<S>) => Promise<CuaResult>,
): CuaCommand {
  const compiled = Compile(params);
  return {
    params,
    check: (value) => {
      if (compiled.Check(value)) return undefined;
      const [first] = compiled.Errors(value) as { instancePath: string; message: string }[];
      return `params${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}`;
    },
    run: (guest, p) => run(guest, p as Static<S>),
  };
}

/** The fields whose values are base64 (a screenshot, a file's bytes): long, and never escaped. */
const BASE64_FIELDS = ['image_data', 'content_b64'] as const;

/**
 * An answer as the bytes sent (UTF-8 JSON, between `prefix` and `suffix`). A base64 value is copied
 * in as Latin-1 bytes: its alphabet needs no JSON escaping and is the same in both encodings. Through
 * JSON.stringify, or a string encoded as UTF-8, a screenshot's 600 KB of it cost milliseconds of the
 * server's main thread per answer (bench/cua.ts); this way it costs one copy.
 */
export function answerBytes(answer: CuaAnswer, prefix = '', suffix = ''): Buffer {
  for (const field of BASE64_FIELDS) {
    const value = answer[field];
    if (typeof value !== 'string') continue;
    const rest: CuaAnswer = { ...answer };
    delete rest[field];
    const head = `${prefix}${JSON.stringify(rest).slice(0, -1)},"${field}":"`;
    const tail = `"}${suffix}`;
    const out = Buffer.allocUnsafe(Buffer.byteLength(head) + value.length + Buffer.byteLength(tail));
    let at = out.write(head);
    at += out.write(value, at, 'latin1');
    out.write(tail, at);
    return out;
  }
  return Buffer.from(`${prefix}${JSON.stringify(answer)}${suffix}`);
}
