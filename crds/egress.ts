// A sandbox's egress policy: where its VM may open connections to. One schema for the create body,
// the PATCH of `…/network`, the Sandbox spec and status; one parser of its rules, used by the API
// (a rule that does not parse is refused before anything is written), the reconciler (a Sandbox
// written through the Kubernetes API is checked again) and the drivers (which enforce it).
//
// Modes: `none` (nothing leaves the VM), `all` (every public address), `allow` (only the rules of
// `allow`: IPv4 addresses or CIDRs, and domain names, `*.` for every subdomain). A host enforces the
// modes its driver and operator allow (`EgressSupport`, on the Mini's status); docs/api.md.
import Type, { type Static } from 'typebox';
import { doc } from './meta.ts';

export const EGRESS_MODES = ['none', 'all', 'allow'] as const;
export type EgressMode = (typeof EGRESS_MODES)[number];

/** Most rules one policy holds. */
export const MAX_EGRESS_RULES = 256;

export const EgressPolicySchema = Type.Object(
  {
    mode: doc(
      '`none` (no connection leaves the VM), `all` (any public address), `allow` (only what `allow` names).',
      Type.Enum([...EGRESS_MODES]),
    ),
    allow: doc(
      'With mode `allow`, its rules: IPv4 addresses or CIDRs (`203.0.113.0/24`) and domain names (`example.com`; `*.example.com` for its subdomains).',
      Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: MAX_EGRESS_RULES }),
      ),
    ),
  },
  { additionalProperties: false },
);
/** A policy as written (the wire, a YAML manifest). */
export type EgressPolicyInput = Static<typeof EgressPolicySchema>;
/** A policy as parsed: rules normalized (CIDRs by their network address, names lower case), `allow` always present. */
export interface EgressPolicy {
  mode: EgressMode;
  allow: string[];
}

export const EgressSupportSchema = Type.Object({
  default: doc(
    "driver: the mode a sandbox's VM has when the sandbox asks for none.",
    Type.Enum([...EGRESS_MODES]),
  ),
  modes: doc('driver: the modes this host enforces.', Type.Array(Type.Enum([...EGRESS_MODES]))),
  domains: doc('driver: whether `allow` rules may name domains (else addresses only).', Type.Boolean()),
  refusal: doc(
    'driver: why the modes (or domain rules) this host does not enforce are refused.',
    Type.Optional(Type.String()),
  ),
});
/** What a host enforces: reported by its driver, kept on the Mini's status. */
export type EgressSupport = Static<typeof EgressSupportSchema>;

/**
 * Addresses no sandbox reaches, whatever its policy: this network, private (RFC 1918), shared
 * (CGNAT), loopback, link-local (cloud metadata services), the benchmarking range (every VM link
 * and test namespace), multicast and reserved. An `allow` rule inside one could never match.
 */
export const FENCED_RANGES: readonly { cidr: string; what: string }[] = [
  { cidr: '0.0.0.0/8', what: '"this network"' },
  { cidr: '10.0.0.0/8', what: 'a private range' },
  { cidr: '100.64.0.0/10', what: 'the shared (CGNAT) range' },
  { cidr: '127.0.0.0/8', what: 'loopback' },
  { cidr: '169.254.0.0/16', what: 'link-local (metadata services)' },
  { cidr: '172.16.0.0/12', what: 'a private range' },
  { cidr: '192.168.0.0/16', what: 'a private range' },
  { cidr: '198.18.0.0/15', what: "the benchmarking range (the VMs' own links)" },
  { cidr: '224.0.0.0/3', what: 'multicast or reserved' },
];

export type EgressRule =
  { kind: 'cidr'; cidr: string; base: number; bits: number } | { kind: 'domain'; name: string };

/** A rule parsed, or why it does not parse (a sentence naming the rule). */
export function parseEgressRule(text: string): EgressRule | { error: string } {
  const rule = text.trim().toLowerCase();
  if (rule.includes(':')) return { error: `"${text}": IPv6 rules are refused (sandboxes have no IPv6)` };
  if (/^[0-9./]+$/.test(rule)) return parseCidr(text, rule);
  return parseDomain(text, rule);
}

function parseCidr(text: string, rule: string): EgressRule | { error: string } {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/(\d{1,2}))?$/.exec(rule);
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const bits = m?.[5] === undefined ? 32 : Number(m[5]);
  if (!m || octets.some((o) => o > 255) || bits > 32) {
    return { error: `"${text}" is neither an IPv4 address or CIDR (a.b.c.d or a.b.c.d/n) nor a domain name` };
  }
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  const base = (((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) & mask) >>> 0;
  const fence = FENCED_RANGES.find((f) => within(base, bits, f.cidr));
  if (fence) return { error: `"${text}" is inside ${fence.cidr} (${fence.what}), which no sandbox reaches` };
  return { kind: 'cidr', cidr: `${ipString(base)}/${bits}`, base, bits };
}

/** Whether the range base/bits lies wholly inside `cidr`. */
function within(base: number, bits: number, cidr: string): boolean {
  const [addr, len] = cidr.split('/');
  const fbits = Number(len);
  if (bits < fbits) return false;
  const mask = fbits === 0 ? 0 : (0xffffffff << (32 - fbits)) >>> 0;
  const o = addr!.split('.').map(Number);
  const fbase = ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0;
  return (base & mask) >>> 0 === fbase;
}

export function ipString(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

function parseDomain(text: string, rule: string): EgressRule | { error: string } {
  const name = rule.endsWith('.') ? rule.slice(0, -1) : rule;
  const bare = name.startsWith('*.') ? name.slice(2) : name;
  const labels = bare.split('.');
  const bad = (why: string) => ({ error: `"${text}" is not a domain name: ${why}` });
  if (!/^[\x21-\x7e]+$/.test(bare))
    return bad('only ASCII letters, digits, "-" and "." (an IDN in its xn-- form)');
  if (bare.length > 253) return bad('longer than 253 characters');
  if (labels.length < 2) return bad('a name needs at least two labels (example.com)');
  if (!labels.every((l) => LABEL.test(l)))
    return bad('each label is 1-63 letters, digits or "-", not starting or ending with "-"');
  if (/^[0-9]+$/.test(labels.at(-1)!)) return bad('its last label is all digits');
  return { kind: 'domain', name };
}

/**
 * The policy as the API stores it, or why it is refused. `allow` belongs to mode `allow`, which
 * needs at least one rule (a policy that allows nothing is `none`). Rules are normalized and
 * duplicates dropped, in the order given.
 */
export function parseEgressPolicy(input: EgressPolicyInput): { policy: EgressPolicy } | { error: string } {
  const rules = input.allow ?? [];
  if (input.mode !== 'allow') {
    if (rules.length > 0)
      return { error: `egress.allow applies to mode "allow" only (the mode is "${input.mode}")` };
    return { policy: { mode: input.mode, allow: [] } };
  }
  if (rules.length === 0)
    return {
      error: 'egress mode "allow" needs at least one rule in egress.allow (allowing nothing is mode "none")',
    };
  const allow: string[] = [];
  for (const text of rules) {
    const rule = parseEgressRule(text);
    if ('error' in rule) return { error: `egress.allow: ${rule.error}` };
    const normal = rule.kind === 'cidr' ? rule.cidr : rule.name;
    if (!allow.includes(normal)) allow.push(normal);
  }
  return { policy: { mode: 'allow', allow } };
}

/** Why `host` does not enforce `policy` (a sentence), or undefined when it does. */
export function egressRefusal(
  support: EgressSupport,
  policy: EgressPolicy,
  host: string,
): string | undefined {
  const why = support.refusal ? `: ${support.refusal}` : '';
  if (!support.modes.includes(policy.mode))
    return `egress mode "${policy.mode}" is not available on ${host}${why}`;
  const domain = policy.allow.find((r) => !/^[0-9./]+$/.test(r));
  if (domain !== undefined && !support.domains)
    return `egress rules naming domains ("${domain}") are not enforced on ${host}${why}`;
  return undefined;
}

/** The policy a sandbox wants on a host: its own, or the host's default. */
export function wantedEgress(asked: EgressPolicy | undefined, support: EgressSupport): EgressPolicy {
  return asked ?? { mode: support.default, allow: [] };
}

export function sameEgress(a: EgressPolicyInput | undefined, b: EgressPolicyInput | undefined): boolean {
  return a?.mode === b?.mode && (a?.allow ?? []).join('\n') === (b?.allow ?? []).join('\n');
}
