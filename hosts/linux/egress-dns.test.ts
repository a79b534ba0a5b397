import { expect, it } from 'vitest';
import { nameAllowed } from './egress-dns.ts';

it('answers a name by the policy: exact names, and a wildcard for subdomains but not the name itself', () => {
  const policy = { mode: 'allow' as const, allow: ['example.com', '*.cdn.example', '203.0.113.0/24'] };
  expect(nameAllowed(policy, 'example.com')).toBe(true);
  expect(nameAllowed(policy, 'www.example.com')).toBe(false);
  expect(nameAllowed(policy, 'a.cdn.example')).toBe(true);
  expect(nameAllowed(policy, 'a.b.cdn.example')).toBe(true);
  expect(nameAllowed(policy, 'cdn.example')).toBe(false);
  expect(nameAllowed(policy, 'evilcdn.example')).toBe(false);
  expect(nameAllowed(policy, '203.0.113.5')).toBe(false);
  expect(nameAllowed({ mode: 'all', allow: [] }, 'anything.example')).toBe(true);
  expect(nameAllowed({ mode: 'none', allow: [] }, 'example.com')).toBe(false);
});
