import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAllTrue, assertErrors, evalCel } from '../cel';

test('cidr() holds a prefix: containment, its address, mask and length', () => {
  assertAllTrue([
    "cidr('192.168.0.0/24').containsIP('192.168.0.7') && !cidr('192.168.0.0/24').containsIP(ip('192.168.1.7'))",
    "!cidr('192.168.0.0/24').containsIP('::1') && cidr('2001:db8::/32').containsIP(ip('2001:db8::1'))",
    "cidr('10.0.0.0/8').containsCIDR('10.0.0.0/16') && !cidr('10.0.0.0/16').containsCIDR(cidr('10.0.0.0/8'))",
    "cidr('192.168.1.5/24').ip() == ip('192.168.1.5') && string(cidr('192.168.1.5/24').masked()) == '192.168.1.0/24'",
    "cidr('192.168.1.5/24').prefixLength() == 24 && string(cidr('2001:DB8::/32')) == '2001:db8::/32'",
    "isCIDR('10.0.0.0/8') && isCIDR('10.0.0.1/8') && !isCIDR('10.0.0.0/33') && !isCIDR('10.0.0.0') && !isCIDR('::ffff:1.2.3.4/120')",
  ]);
});

test('containsCIDR compares the masked prefix with the other address as the library does', () => {
  // cidr.go compares Masked() with PrefixFrom(other address, bits), which keeps host bits.
  assert.equal(evalCel("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')"), false);
  assert.equal(evalCel("cidr('10.0.0.0/8').containsCIDR('10.0.0.0/8')"), true);
});

test('cidr() refuses what netip.ParsePrefix refuses, with the library wording', () => {
  const wrap = 'network address parse error during conversion from string: ';
  assertErrors([
    ["cidr('1.2.3.4')", `${wrap}${wrap}netip.ParsePrefix("1.2.3.4"): no '/'`],
    ["cidr('::1/129')", `${wrap}${wrap}netip.ParsePrefix("::1/129"): prefix length out of range`],
    [
      "cidr('10.0.0.0/08')",
      `${wrap}${wrap}netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"`,
    ],
    [
      "cidr('::ffff:1.2.3.4/120')",
      `${wrap}IPv4-mapped IPv6 address "::ffff:1.2.3.4/120" is not allowed`,
    ],
  ]);
});
