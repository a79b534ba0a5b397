// The recorded actions as Harbor's oracle solution: `solution/actions.json` (the tool calls as data,
// in order: what sandbay's replay re-executes, for a replay through the API) and `solution/solve.sh`,
// which Harbor's OracleAgent runs inside the environment. solve.sh carries the actions out on the
// guest's X11 desktop with xdotool (sandbay's linux desktops have it), at the replay's pace: back to
// back, as sandbay's replay runs them. A guest without X11 (macOS) cannot be driven from inside
// without an accessibility grant, so there solve.sh stops, saying so; replay actions.json through
// sandbay's API instead (docs/agents.md).
//
// The script is written by the replay's own step runner (operator/replay/actions.ts `performStep`)
// against a Guest whose input methods write xdotool lines instead of sending input: the same
// vocabulary, defaults and argument checks as a replay, and the same key names (hosts/linux/keys.ts:
// `cmd` is Control on a Linux desktop). Keys go to xdotool as keysym numbers, text as one word.
import {
  type Guest,
  type MouseButton,
  MULTI_CLICK_GAP_MS,
  type ScrollDirection,
} from '../../../hosts/driver.ts';
import { chordFor, keysymsForText, parseHotkey } from '../../../hosts/linux/keys.ts';
import { shellQuote } from '../../../hosts/linux/ssh-client.ts';
import { EXEC_STEP_TIMEOUT_MS, performStep } from '../../../operator/replay/actions.ts';
import { orderedSteps } from '../../atif.ts';
import type { Task } from '../../../crds/index.ts';
import { TaskNotExportable } from './errors.ts';

const BUTTON: Record<MouseButton, number> = { left: 1, middle: 2, right: 3, back: 8, forward: 9 };
const WHEEL: Record<ScrollDirection, number> = { up: 4, down: 5, left: 6, right: 7 };
/** xdotool's own pause between typed keys (ms) when the step gives none. */
const TYPE_DELAY_MS = 12;

const hex = (keysym: number) => `0x${keysym.toString(16)}`;
const chord = (c: { held: number[]; key: number }) => [...c.held, c.key].map(hex).join('+');

/** The input methods performStep calls, each writing its xdotool line. */
class ScriptGuest {
  readonly lines: string[] = [];

  #x(...words: (string | number)[]): void {
    this.lines.push(`xdotool ${words.map((w) => (typeof w === 'number' ? String(w) : w)).join(' ')}`);
  }

  async click(x: number, y: number, opts: { button?: MouseButton; double?: boolean } = {}): Promise<void> {
    const repeat = opts.double ? ['--repeat', 2, '--delay', MULTI_CLICK_GAP_MS] : [];
    this.#x('mousemove', x, y, 'click', ...repeat, BUTTON[opts.button ?? 'left']);
  }

  async move(x: number, y: number): Promise<void> {
    this.#x('mousemove', x, y);
  }

  async drag(from: { x: number; y: number }, to: { x: number; y: number }, button: MouseButton = 'left') {
    const b = BUTTON[button];
    this.#x(
      'mousemove',
      from.x,
      from.y,
      'mousedown',
      b,
      'sleep',
      0.05,
      'mousemove',
      to.x,
      to.y,
      'sleep',
      0.05,
      'mouseup',
      b,
    );
  }

  async scroll(x: number, y: number, direction: ScrollDirection, amount: number): Promise<void> {
    this.#x('mousemove', x, y, 'click', '--repeat', amount, '--delay', 20, WHEEL[direction]);
  }

  async type(text: string, delayMs?: number): Promise<void> {
    keysymsForText(text); // refuses what the desktop cannot type (control characters), as the driver does
    this.#x('type', '--delay', delayMs ?? TYPE_DELAY_MS, '--', shellQuote(text));
  }

  async press(key: string, modifiers?: string[]): Promise<void> {
    this.#x('key', chord(chordFor(key, modifiers)));
  }

  async hotkey(keys: string): Promise<void> {
    this.#x('key', chord(parseHotkey(keys)));
  }

  async keys(keys: string, down: boolean): Promise<void> {
    const { held, key } = parseHotkey(keys);
    const all = [...held, key].map(hex);
    this.#x(down ? 'keydown' : 'keyup', ...(down ? all : all.reverse()));
  }

  async exec(command: string): Promise<void> {
    // As the replay runs it: under the user's shell, its exit code ignored, within its limit.
    const seconds = EXEC_STEP_TIMEOUT_MS / 1000;
    this.lines.push(
      `perl -e 'alarm shift; exec @ARGV' ${seconds} "\${SHELL:-/bin/sh}" -c ${shellQuote(command)} </dev/null || true`,
    );
  }
}

/** One recorded action as data. */
export interface HarborAction {
  function: string;
  args: Record<string, unknown>;
}

export function harborActions(task: Task): HarborAction[] {
  return orderedSteps(task).map((s) => ({ function: s.function, args: s.args }));
}

const PRELUDE = `set -eu
if [ "$(uname -s)" = Darwin ] || [ -z "\${DISPLAY:-}" ] || ! command -v xdotool >/dev/null 2>&1; then
  echo 'solve.sh replays the recorded actions on an X11 desktop with xdotool, which this guest has not:' >&2
  echo 'replay solution/actions.json through sandbay (POST /v1/sandboxes/{id}/act; docs/agents.md).' >&2
  exit 1
fi`;

/** solve.sh: the actions in order, each under a comment naming its step. */
export async function harborSolveScript(task: Task): Promise<string> {
  const guest = new ScriptGuest();
  const body: string[] = [];
  for (const step of orderedSteps(task)) {
    const before = guest.lines.length;
    try {
      await performStep(guest as unknown as Guest, step.function, step.args);
    } catch (err) {
      throw new TaskNotExportable(
        `recorded step ${step.index} (${step.function}): ${(err as Error).message}`,
      );
    }
    body.push(`# step ${step.index}: ${step.function}`, ...guest.lines.slice(before));
  }
  return [
    '#!/bin/sh',
    `# solution/solve.sh of the Harbor task exported from sandbay task ${JSON.stringify(task.metadata.name)}:`,
    '# the recorded demonstration, replayed on the desktop (Harbor runs it as the oracle).',
    PRELUDE,
    ...body,
    '',
  ].join('\n');
}
