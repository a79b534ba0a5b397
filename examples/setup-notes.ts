// Shared by the TypeScript agent examples: opens a terminal whose first typed line is saved to
// ~/answer.txt, focuses it, and reads the answer back. The agent's own work is in the examples.
import type { Sandbox } from '../sdk/typescript/src/index.ts';

/** Waits (polling) until `probe` returns something truthy. */
export async function until<T>(
  probe: () => Promise<T | undefined | false>,
  what: string,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Opens the `notes` terminal and focuses it; resolves with its centre, where the agent will click. */
export async function openNotes(sb: Sandbox): Promise<{ x: number; y: number }> {
  await sb.exec(
    `(setsid xterm -T notes -e sh -c 'read line; echo "$line" > ~/answer.txt' >/dev/null 2>&1 &)`,
  );
  const notes = async () => (await sb.display.getWindows()).find((w) => w.name === 'notes');
  const w = await until(notes, 'the notes window');
  const centre = { x: w.x + Math.round(w.width / 2), y: w.y + Math.round(w.height / 2) };
  await sb.mouse.click(centre.x, centre.y);
  await until(async () => (await notes())?.focused, 'the notes window focused');
  return centre;
}

/** The line the agent typed, once the terminal has saved it. */
export function readAnswer(sb: Sandbox): Promise<string> {
  return until(
    () =>
      sb.downloadBytes('answer.txt').then(
        (b) => new TextDecoder().decode(b).trim(),
        () => undefined,
      ),
    'the answer',
  );
}
