// A sandbox's info as the JSON its route's response schema made of it, kept per cached sandbox
// object and viewer link: clients poll GET /v1/sandboxes/{id}, and building and serializing its
// twelve fields was the largest part of that route's own work. Keyed by the cached object itself:
// any change to the sandbox replaces it in the informer's cache (and so drops this entry); a new
// viewer link (links are reused until near their expiry) replaces the entry.
import type { Sandbox } from '../../crds/index.ts';

export interface InfoJson {
  url: string;
  json: string;
  /** Its length in UTF-8 bytes (the Content-Length). */
  bytes: number;
}

const infoJson = new WeakMap<Sandbox, InfoJson>();

/** The JSON answered last for this sandbox object and link, if it is still the answer. */
export function knownInfoJson(sandbox: Sandbox, url: string): InfoJson | undefined {
  const known = infoJson.get(sandbox);
  return known?.url === url ? known : undefined;
}

export function rememberInfoJson(sandbox: Sandbox, url: string, json: string): void {
  infoJson.set(sandbox, { url, json, bytes: Buffer.byteLength(json) });
}
