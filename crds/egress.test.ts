import { describe, expect, it } from 'vitest';
import { egressRefusal, parseEgressPolicy, parseEgressRule, sameEgress } from './egress.ts';

describe('egress rules', () => {
  it('parses addresses and CIDRs, clearing host bits', () => {
    expect(parseEgressRule('203.0.113.7')).toMatchObject({ kind: 'cidr', cidr: '203.0.113.7/32' });
    expect(parseEgressRule(' 203.0.113.77/24 ')).toMatchObject({ kind: 'cidr', cidr: '203.0.113.0/24' });
    expect(parseEgressRule('0.0.0.0/0')).toMatchObject({ kind: 'cidr', cidr: '0.0.0.0/0' });
  });

  it('parses domain names and wildcards, lower case without the trailing dot', () => {
    expect(parseEgressRule('API.Example.COM.')).toEqual({ kind: 'domain', name: 'api.example.com' });
    expect(parseEgressRule('*.example.com')).toEqual({ kind: 'domain', name: '*.example.com' });
    expect(parseEgressRule('xn--bcher-kva.example')).toEqual({
      kind: 'domain',
      name: 'xn--bcher-kva.example',
    });
  });

  it.each([
    ['203.0.113.256', /neither an IPv4/],
    ['203.0.113.0/33', /neither an IPv4/],
    ['1.2.3', /neither an IPv4/],
    ['10.1.0.0/16', /10\.0\.0\.0\/8 \(a private range\)/],
    ['127.0.0.1', /loopback/],
    ['169.254.169.254', /link-local/],
    ['198.19.3.2', /benchmarking range/],
    ['fd00::1', /IPv6/],
    ['localhost', /two labels/],
    ['-bad.example', /not starting or ending/],
    ['bücher.example', /ASCII/],
    ['a..example', /each label/],
    ['example.123', /all digits/],
    ['**.example.com', /each label/],
  ])('refuses %s, naming why', (rule, why) => {
    const parsed = parseEgressRule(rule);
    expect(parsed).toHaveProperty('error');
    expect((parsed as { error: string }).error).toMatch(why);
    expect((parsed as { error: string }).error).toContain(rule);
  });

  it('lets a wide CIDR that only overlaps a fenced range through (the fence holds anyway)', () => {
    expect(parseEgressRule('8.0.0.0/5')).toMatchObject({ kind: 'cidr', cidr: '8.0.0.0/5' });
  });
});

describe('egress policies', () => {
  it('normalizes rules and drops duplicates, in the order given', () => {
    expect(
      parseEgressPolicy({
        mode: 'allow',
        allow: ['B.example', 'b.example.', '203.0.113.1/24', '203.0.113.0/24'],
      }),
    ).toEqual({
      policy: { mode: 'allow', allow: ['b.example', '203.0.113.0/24'] },
    });
    expect(parseEgressPolicy({ mode: 'none' })).toEqual({ policy: { mode: 'none', allow: [] } });
  });

  it('refuses allow without rules and rules without allow', () => {
    expect(parseEgressPolicy({ mode: 'allow', allow: [] })).toHaveProperty('error');
    expect(parseEgressPolicy({ mode: 'all', allow: ['example.com'] })).toHaveProperty('error');
  });

  it('says why a host refuses a mode or a domain rule', () => {
    const cidrsOnly = {
      default: 'all' as const,
      modes: ['all' as const, 'allow' as const],
      domains: false,
      refusal: 'no DNS',
    };
    expect(egressRefusal(cidrsOnly, { mode: 'none', allow: [] }, 'mac-1')).toBe(
      'egress mode "none" is not available on mac-1: no DNS',
    );
    expect(
      egressRefusal(cidrsOnly, { mode: 'allow', allow: ['203.0.113.0/24', 'a.example'] }, 'mac-1'),
    ).toMatch(/"a.example"/);
    expect(egressRefusal(cidrsOnly, { mode: 'allow', allow: ['203.0.113.0/24'] }, 'mac-1')).toBeUndefined();
  });

  it('compares policies by mode and rules', () => {
    expect(sameEgress({ mode: 'none' }, { mode: 'none', allow: [] })).toBe(true);
    expect(sameEgress({ mode: 'allow', allow: ['a.example'] }, { mode: 'allow', allow: ['b.example'] })).toBe(
      false,
    );
    expect(sameEgress(undefined, { mode: 'none' })).toBe(false);
  });
});
