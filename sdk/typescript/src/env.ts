// Reads configuration from the environment where the runtime has one: Node and Bun (`process.env`),
// Deno (`Deno.env`, which throws without --allow-env), nothing in a browser.
interface Runtimes {
  process?: { env?: Record<string, string | undefined> };
  Deno?: { env?: { get(name: string): string | undefined } };
}

export function envVar(name: string): string | undefined {
  const g = globalThis as Runtimes;
  if (g.process?.env) return g.process.env[name];
  try {
    return g.Deno?.env?.get(name);
  } catch {
    return undefined;
  }
}
