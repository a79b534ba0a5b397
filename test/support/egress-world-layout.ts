// The fake internet of the egress tests (egress-world.ts, fake-internet.ts): documentation
// addresses (RFC 5737 TEST-NET-3) and reserved names (RFC 2606 `.example`), which exist only inside
// the test's own namespaces.
export const WORLD = {
  /** The machine namespace's end of the uplink; the VMs' connections leave masqueraded to it. */
  uplink: '203.0.113.1',
  /** The internet namespace's own end. */
  internet: '203.0.113.2',
  dns: '203.0.113.53',
  web: { '203.0.113.10': 'allowed site\n', '203.0.113.20': 'other site\n' } as Record<string, string>,
  names: {
    'allowed.example': '203.0.113.10',
    'other.example': '203.0.113.20',
    'a.wild.example': '203.0.113.20',
  } as Record<string, string>,
} as const;
