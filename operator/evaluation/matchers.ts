// The comparisons setup steps and graders make: text against an expectation, a command's result
// against `expect`, a window tree against a WindowMatch. Pure functions, shared by the step runner
// and the graders.
//
// Regular expressions come from tenants and run in the control plane, so they are RE2 (re2js):
// matching is linear in the input, and no pattern can hold the event loop (a backtracking engine
// takes exponential time on `(a+)+b`). RE2 has no backreferences or lookaround; a pattern using them
// is refused when the step or grader is checked (validate.ts).
import { RE2JS } from 're2js';
import type { CommandExpect, WindowMatch } from '../../crds/index.ts';
import type { ExecResult, WindowNode } from '../../hosts/driver.ts';

/**
 * Compiles a tenant's pattern; throws RE2JSSyntaxException (with its reason) when it is not RE2.
 * Multi-line: `^` and `$` match at each line's start and end, so `^True$` matches a command's
 * output line `True` (which ends with a newline).
 */
export function compilePattern(pattern: string, ignoreCase = false): RE2JS {
  return RE2JS.compile(pattern, RE2JS.MULTILINE | (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0));
}

export function patternMatches(pattern: string, text: string, ignoreCase = false): boolean {
  return compilePattern(pattern, ignoreCase).matcher(text).find();
}

const fold = (s: string, ignoreCase: boolean | undefined) => (ignoreCase ? s.toLowerCase() : s);

/** `equals` compares content without its trailing newlines (what `echo` and editors add). */
export function trimTrailingNewlines(s: string): string {
  return s.replace(/[\r\n]+$/, '');
}

/**
 * What `text` lacks of `contains` (one string, or several that must all be there) or has of
 * `excludes`, as a sentence about `what`; undefined when it has all and none. Messages quote at
 * most 200 characters of the text looked for.
 */
export function unmetContent(
  what: string,
  text: string,
  contains: string | readonly string[] | undefined,
  excludes: readonly string[] | undefined,
  ignoreCase: boolean | undefined,
): string | undefined {
  const folded = fold(text, ignoreCase);
  const quote = (s: string) => JSON.stringify(s.slice(0, 200));
  for (const s of contains === undefined ? [] : typeof contains === 'string' ? [contains] : contains)
    if (!folded.includes(fold(s, ignoreCase))) return `${what} does not contain ${quote(s)}`;
  for (const s of excludes ?? [])
    if (folded.includes(fold(s, ignoreCase))) return `${what} contains ${quote(s)}`;
  return undefined;
}

/** The first expectation of `expect` the result does not meet, as a sentence; undefined when all hold. */
export function unmetExpectation(result: ExecResult, expect: CommandExpect = {}): string | undefined {
  const code = expect.exit_code === undefined ? 0 : expect.exit_code;
  if (result.timed_out) return 'timed out';
  if (code !== null && result.return_code !== code)
    return `exited with ${result.return_code}, expected ${code}`;
  const ic = expect.ignore_case;
  const out = fold(result.stdout, ic);
  const stdout = unmetContent('stdout', result.stdout, expect.stdout_contains, expect.stdout_excludes, ic);
  if (stdout) return stdout;
  if (
    expect.stdout_equals !== undefined &&
    trimTrailingNewlines(out) !== trimTrailingNewlines(fold(expect.stdout_equals, ic))
  )
    return `stdout is not ${JSON.stringify(expect.stdout_equals)}`;
  if (expect.stdout_matches !== undefined && !patternMatches(expect.stdout_matches, result.stdout, ic))
    return `stdout does not match /${expect.stdout_matches}/`;
  return unmetContent('stderr', result.stderr, expect.stderr_contains, expect.stderr_excludes, ic);
}

/** Whether one node (not its children) is what `match` describes. */
export function nodeMatches(node: WindowNode, match: WindowMatch): boolean {
  const ic = match.ignore_case;
  const name = fold(node.name ?? '', ic);
  if (match.name !== undefined && name !== fold(match.name, ic)) return false;
  if (match.name_contains !== undefined && !name.includes(fold(match.name_contains, ic))) return false;
  if (match.name_matches !== undefined && !patternMatches(match.name_matches, node.name ?? '', ic))
    return false;
  if (match.role !== undefined && node.role !== match.role) return false;
  if (match.app !== undefined && fold(node.app ?? '', ic) !== fold(match.app, ic)) return false;
  if (match.focused !== undefined && (node.focused === true) !== match.focused) return false;
  return true;
}

/** The first node of the tree (depth first, windows before their children) that matches. */
export function findWindow(tree: readonly WindowNode[], match: WindowMatch): WindowNode | undefined {
  for (const node of tree) {
    if (nodeMatches(node, match)) return node;
    const below = node.children ? findWindow(node.children, match) : undefined;
    if (below) return below;
  }
  return undefined;
}

/** A WindowMatch as people read it, for messages: `{"name_contains":"notes.txt"}`. */
export function describeMatch(match: WindowMatch): string {
  return JSON.stringify(match);
}
