// The use.computer client's best-effort accessibility tree: `accessibility.get_tree()` asks
// `GET …/display/windows?best_effort=1` and reads `{available, tree, error}` when the answer is an
// object. "Best effort" means a tree the VM cannot give is an answer, not a failure: a 5xx would
// make the client's transport retry it three times, 2 s apart, before it reports "not available".
import Type, { type Static } from 'typebox';
import { DriverError, type WindowNode } from '../../../hosts/driver.ts';
import { toApiError } from '../../errors.ts';
import { WindowsSchema } from '../../schemas/control.ts';

export const AccessibilityTreeSchema = Type.Object({
  available: Type.Boolean({ description: 'true when the tree was read; false with `error` otherwise.' }),
  tree: Type.Union([WindowsSchema, Type.Null()], {
    description: 'The windows, exactly as without `best_effort`; null when not available.',
  }),
  error: Type.String({
    description: 'Why the tree is not available (`<code>: <message>`); empty when it is.',
  }),
});
export type AccessibilityTree = Static<typeof AccessibilityTreeSchema>;

/**
 * The windows as a best-effort answer: a failure to get them from the VM (a driver error, or any 5xx:
 * the VM or its Mac unreachable, too slow, its tool failing) is `available: false`; a refusal of the
 * request itself (4xx: not the caller's sandbox, not running) stays the error it is.
 */
export async function bestEffortTree(read: () => Promise<WindowNode[]>): Promise<AccessibilityTree> {
  try {
    return { available: true, tree: await read(), error: '' };
  } catch (err) {
    const apiErr = toApiError(err);
    // A bug (internal_error) stays an error too: it is logged, not hidden in an answer.
    if (apiErr.code === 'internal_error' || (!(err instanceof DriverError) && apiErr.status < 500)) throw err;
    return { available: false, tree: null, error: `${apiErr.code}: ${apiErr.message}` };
  }
}
