/**
 * Kubernetes' CEL CIDR library (k8s.io/apiserver/pkg/cel/library/cidr.go, in the base environment
 * since 1.30): `isCIDR(s)`, `cidr(s)`, `string(cidr)` and the CIDR methods `containsIP`,
 * `containsCIDR` (each taking a value or a string), `ip`, `masked` and `prefixLength`. Prefixes
 * parse as Go's netip.ParsePrefix parses them, with its error text; host bits are kept (`masked()`
 * clears them). A CIDR is held as its canonical text (`addr/bits`).
 */
import type { CelValue } from '@bufbuild/cel';
import { CelScalar, celFunc, celMethod } from '@bufbuild/cel';
import type { Addr } from './celip';
import {
  IP,
  formatAddr,
  parses,
  ipAddr,
  ipValue,
  is4In6,
  netipParseAddr,
  parseIPAddr,
} from './celip';
import { OPAQUE, expect, opaqueType } from './celopaque';

const { BOOL, DYN, INT, STRING } = CelScalar;

interface Prefix {
  addr: Addr;
  bits: number;
}

const CIDR = opaqueType<string>('net.CIDR');

/** netip.ParsePrefix. */
function netipParsePrefix(s: string): Prefix {
  const fail = (msg: string) => new Error(`netip.ParsePrefix(${JSON.stringify(s)}): ${msg}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw fail("no '/'");
  let addr: ReturnType<typeof netipParseAddr>;
  try {
    addr = netipParseAddr(s.slice(0, slash));
  } catch (err) {
    throw fail((err as Error).message);
  }
  if (addr.zone) throw fail('IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText))
    throw fail(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > addr.bytes.length * 8) throw fail('prefix length out of range');
  return { addr: { bytes: addr.bytes }, bits };
}

/** The library's parseCIDR: refuses IPv4-mapped IPv6 addresses. */
function parseCIDR(raw: string): Prefix {
  const wrap = 'network address parse error during conversion from string: ';
  let p: Prefix;
  try {
    p = netipParsePrefix(raw);
  } catch (err) {
    throw new Error(wrap + (err as Error).message);
  }
  if (is4In6(p.addr))
    throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return p;
}

/** stringToCIDR: parseCIDR's error wrapped once more, as the library does. */
function toCIDR(raw: string): Prefix {
  try {
    return parseCIDR(raw);
  } catch (err) {
    throw new Error(
      `network address parse error during conversion from string: ${(err as Error).message}`,
    );
  }
}

const formatPrefix = (p: Prefix) => `${formatAddr(p.addr)}/${p.bits}`;
const cidrValue = (p: Prefix) => CIDR.wrap(formatPrefix(p));
const prefixOf = (v: CelValue) => netipParsePrefix(expect(CIDR, v));

/** Prefix.Masked: the host bits cleared. */
function mask(p: Prefix): Prefix {
  const bytes = p.addr.bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, p.bits - 8 * i));
    return b & (0xff << (8 - keep)) & 0xff;
  });
  return { addr: { bytes }, bits: p.bits };
}

/** Prefix.Contains: same family and the same leading bits. */
function contains(p: Prefix, a: Addr): boolean {
  if (p.addr.bytes.length !== a.bytes.length) return false;
  return formatPrefix(mask(p)) === formatPrefix(mask({ addr: a, bits: p.bits }));
}

/** cidrContainsCIDR: Masked() against PrefixFrom(other's address, bits), which keeps host bits. */
function containsCIDR(p: Prefix, o: Prefix): boolean {
  const same = formatPrefix(mask(p)) === formatPrefix({ addr: o.addr, bits: p.bits });
  return same && p.bits <= o.bits;
}

/** The argument of containsIP / containsCIDR: a value of the type, or a string to parse. */
function argument<T>(v: CelValue, parse: (s: string) => T, read: (v: CelValue) => T): T {
  return typeof v === 'string' ? parse(v) : read(v);
}

export const cidrLibrary = [
  celFunc('isCIDR', [STRING], BOOL, (s) => parses(parseCIDR, s)),
  celFunc('cidr', [STRING], OPAQUE, (s) => cidrValue(toCIDR(s))),
  celMethod('containsIP', OPAQUE, [DYN], BOOL, function (o) {
    return contains(prefixOf(this), argument(o, parseIPAddr, ipAddr));
  }),
  celMethod('containsCIDR', OPAQUE, [DYN], BOOL, function (o) {
    return containsCIDR(prefixOf(this), argument(o, toCIDR, prefixOf));
  }),
  celMethod('ip', OPAQUE, [], OPAQUE, function () {
    return ipValue(prefixOf(this).addr);
  }),
  celMethod('masked', OPAQUE, [], OPAQUE, function () {
    return cidrValue(mask(prefixOf(this)));
  }),
  celMethod('prefixLength', OPAQUE, [], INT, function () {
    return BigInt(prefixOf(this).bits);
  }),
  // string() of both network types: one overload, as cel-es keys overloads by their signature.
  celFunc('string', [OPAQUE], STRING, (v) => IP.unwrap(v)?.value ?? expect(CIDR, v)),
];
