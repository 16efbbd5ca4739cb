/**
 * Kubernetes' CEL IP library (k8s.io/apiserver/pkg/cel/library/ip.go, in the base environment
 * since 1.30): `isIP(s)`, `ip(s)`, `ip.isCanonical(s)`, `string(ip)` and the IP methods `family`,
 * `isUnspecified`, `isLoopback`, `isLinkLocalMulticast`, `isLinkLocalUnicast` and
 * `isGlobalUnicast`. Addresses parse as Go's netip.ParseAddr parses them (with its error text),
 * minus zones and IPv4-mapped IPv6 addresses, which the library refuses. An IP is held as its
 * canonical text, so two IPs are equal exactly when their addresses are.
 */
import { CelScalar, celFunc, celMethod } from '@bufbuild/cel';
import { OPAQUE, expect, opaqueType } from './celopaque';

const { BOOL, INT, STRING } = CelScalar;

export interface Addr {
  /** 4 or 16 bytes. */
  bytes: number[];
}

/** netip's parseAddrError text. */
function addrError(input: string, msg: string, at?: string): Error {
  const where = at ? ` (at ${JSON.stringify(at)})` : '';
  return new Error(`ParseAddr(${JSON.stringify(input)}): ${msg}${where}`);
}

/** Dotted-quad IPv4 as netip parses it (four decimal octets, no leading zeros); input names errors. */
function parseIPv4(s: string, input = s): number[] {
  const out: number[] = [];
  let val = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0)
        throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.')
        throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (out.length === 3) throw addrError(input, 'IPv4 address too long');
      out.push(val);
      val = 0;
      digits = 0;
    } else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (out.length < 3) throw addrError(input, 'IPv4 address too short');
  return [...out, val];
}

/**
 * The 16 bytes of an IPv6 address as netip scans it: hex groups of at most four digits separated
 * by colons, one `::`, an optional trailing dotted quad; `input` (with any zone) names the errors.
 */
function parseIPv6(text: string, input: string): number[] {
  const ip = new Array<number>(16).fill(0);
  let s = text;
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (!s) return ip;
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length && /[0-9a-fA-F]/.test(s[off]!); off++) {
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      acc = acc * 16 + parseInt(s[off]!, 16);
    }
    if (off === 0)
      throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (s[off] === '.') {
      if (ellipsis < 0 && i !== 12)
        throw addrError(
          input,
          'embedded IPv4 address must replace the final 2 fields of the address',
          s,
        );
      if (i + 4 > 16)
        throw addrError(
          input,
          'too many hex fields to fit an embedded IPv4 at the end of the address',
          s,
        );
      ip.splice(i, 4, ...parseIPv4(s, input));
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (!s) break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (!s) break;
    }
  }
  if (s) throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const tail = ip.slice(ellipsis, i);
    ip.fill(0, ellipsis);
    ip.splice(16 - tail.length, tail.length, ...tail);
  } else if (ellipsis >= 0)
    throw addrError(input, 'the :: must expand to at least one field of zeros', s);
  return ip;
}

/** netip.ParseAddr: the bytes and zone of an address, or its error. */
export function netipParseAddr(raw: string): Addr & { zone: string } {
  const kind = /[.:%]/.exec(raw)?.[0];
  if (kind === '.') return { bytes: parseIPv4(raw), zone: '' };
  if (kind === '%') throw addrError(raw, 'missing IPv6 address');
  if (kind !== ':') throw addrError(raw, 'unable to parse IP');
  const z = raw.indexOf('%');
  if (z === raw.length - 1) throw addrError(raw, 'zone must be a non-empty string');
  const zone = z < 0 ? '' : raw.slice(z + 1);
  return { bytes: parseIPv6(z < 0 ? raw : raw.slice(0, z), raw), zone };
}

/** The library's parseIPAddr: netip's parse, refusing zones and IPv4-mapped IPv6 addresses. */
export function parseIPAddr(raw: string): Addr {
  let addr: Addr & { zone: string };
  try {
    addr = netipParseAddr(raw);
  } catch (err) {
    const detail = (err as Error).message;
    throw new Error(
      `IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${detail}`,
    );
  }
  if (addr.zone)
    throw new Error(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (is4In6(addr))
    throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return { bytes: addr.bytes };
}

export function is4In6(a: Addr): boolean {
  const b = a.bytes;
  return (
    b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff
  );
}

/** Addr.String(): dotted quad, or RFC 5952 (lower case, the longest run of zero groups as ::). */
export function formatAddr(a: Addr): string {
  const b = a.bytes;
  if (b.length === 4) return b.join('.');
  const g = Array.from({ length: 8 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (xs: number[]) => xs.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(g);
  return `${hex(g.slice(0, best))}::${hex(g.slice(best + bestLen))}`;
}

/** Whether a parse succeeds (the `isX(s)` checks of the libraries). */
export function parses(parse: (s: string) => unknown, s: string): boolean {
  try {
    parse(s);
    return true;
  } catch {
    return false;
  }
}

export const IP = opaqueType<string>('net.IP');

/** The address of an IP value (its canonical text parses back to it). */
export function ipAddr(v: Parameters<typeof expect>[1]): Addr {
  return parseIPAddr(expect(IP, v));
}

export function ipValue(a: Addr) {
  return IP.wrap(formatAddr(a));
}

function classify(a: Addr) {
  const b = a.bytes;
  const v4 = b.length === 4;
  const zero = b.every((x) => x === 0);
  return {
    unspecified: zero,
    loopback: v4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1,
    linkLocalMulticast: v4
      ? b[0] === 224 && b[1] === 0 && b[2] === 0
      : b[0] === 0xff && (b[1]! & 0x0f) === 2,
    linkLocalUnicast: v4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80,
    multicast: v4 ? (b[0]! & 0xf0) === 0xe0 : b[0] === 0xff,
    broadcast: v4 && b.every((x) => x === 255),
  };
}

/** netip's IsGlobalUnicast: not unspecified, broadcast, loopback, multicast or link-local. */
function isGlobalUnicast(a: Addr): boolean {
  const c = classify(a);
  return !(c.unspecified || c.broadcast || c.loopback || c.multicast || c.linkLocalUnicast);
}

const ipMethod = (name: string, test: (a: Addr) => boolean) =>
  celMethod(name, OPAQUE, [], BOOL, function () {
    return test(ipAddr(this));
  });

export const ipLibrary = [
  celFunc('isIP', [STRING], BOOL, (s) => parses(parseIPAddr, s)),
  celFunc('ip', [STRING], OPAQUE, (s) => ipValue(parseIPAddr(s))),
  celFunc('ip.isCanonical', [STRING], BOOL, (s) => formatAddr(parseIPAddr(s)) === s),
  celMethod('family', OPAQUE, [], INT, function () {
    return ipAddr(this).bytes.length === 4 ? 4n : 6n;
  }),
  ipMethod('isUnspecified', (a) => classify(a).unspecified),
  ipMethod('isLoopback', (a) => classify(a).loopback),
  ipMethod('isLinkLocalMulticast', (a) => classify(a).linkLocalMulticast),
  ipMethod('isLinkLocalUnicast', (a) => classify(a).linkLocalUnicast),
  ipMethod('isGlobalUnicast', isGlobalUnicast),
];
