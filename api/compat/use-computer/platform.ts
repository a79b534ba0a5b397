// The use.computer client's refusal of a platform: its gateway answers an action a sandbox's
// platform cannot do with 501 `{error: "not supported on iOS sandbox", sandbox_type, action, hint}`,
// and its SDK raises `PlatformNotSupportedError` for exactly that `error` sentence. sandbay runs
// macOS sandboxes only, so a create of any other `type` is refused this way, before the body is
// validated: an iOS create carries simulator fields (`device_type`, `runtime`) that the create
// schema does not know, and the caller must hear "not supported", not "unknown field".
import Type from 'typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import { SANDBOX_TYPE } from '../../schemas/sandboxes.ts';

/** How the gateway spells the platforms of its sandbox types in the `error` sentence. */
const PLATFORM_NAMES: Record<string, string> = {
  ios: 'iOS',
  ipados: 'iPadOS',
  tvos: 'tvOS',
  watchos: 'watchOS',
  visionos: 'visionOS',
};

export const PlatformNotSupportedSchema = Type.Object({
  error: Type.String({
    description:
      "The use.computer gateway's sentence, `not supported on <platform> sandbox` (e.g. `not supported on iOS sandbox`, which its SDK turns into PlatformNotSupportedError).",
  }),
  code: Type.Literal('sandbox_type_not_supported', { description: 'The error code (docs/api.md).' }),
  message: Type.String({ description: 'A sentence for people.' }),
  sandbox_type: Type.String({ description: 'The type asked for.' }),
  action: Type.String({ description: 'The refused action, e.g. `POST /v1/sandboxes`.' }),
  hint: Type.String({ description: 'What to do instead.' }),
});

/** A 501 in the use.computer gateway's shape (and the registry's code beside it). */
export class PlatformNotSupported extends ApiError {
  readonly sandboxType: string;
  readonly action: string;

  constructor(sandboxType: string, action: string) {
    super(
      'sandbox_type_not_supported',
      `body/type: sandbay runs macOS sandboxes only; ${JSON.stringify(sandboxType)} is not supported.`,
    );
    this.sandboxType = sandboxType;
    this.action = action;
  }

  override toJSON() {
    return {
      error: `not supported on ${PLATFORM_NAMES[this.sandboxType.toLowerCase()] ?? this.sandboxType} sandbox`,
      code: 'sandbox_type_not_supported' as const,
      message: this.message,
      sandbox_type: this.sandboxType,
      action: this.action,
      hint: `create with "type": "${SANDBOX_TYPE}" (or no type)`,
    };
  }
}

/** Longest `type` echoed back in the refusal; a longer one is the schema's 400. */
const MAX_TYPE_LENGTH = 64;

/**
 * preValidation of the create: a body whose `type` is a string other than `macos` answers 501 at
 * once (nothing written, no Idempotency-Key claimed); anything else goes on to the schema.
 */
export async function refuseOtherPlatforms(request: FastifyRequest): Promise<void> {
  const type = (request.body as { type?: unknown } | null | undefined)?.type;
  if (typeof type !== 'string' || type === SANDBOX_TYPE) return;
  if (type.length === 0 || type.length > MAX_TYPE_LENGTH) return;
  throw new PlatformNotSupported(type, `${request.method} ${request.routeOptions.url}`);
}
