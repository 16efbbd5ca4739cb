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
  const where = at === undefined ? '' : ` (at ${JSON.stringify(at)})`;
  return new Error(`ParseAddr(${JSON.stringify(input)}): ${msg}${where}`);
}

/** Dotted-quad IPv4 as netip parses it: four decimal octets, no leading zeros. */
function parseIPv4(s: string, input = s): number[] {
  const out: number[] = [];
  let field = '';
  const flush = (i: number) => {
    if (field === '') throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
    if (field.length > 1 && field.startsWith('0'))
      throw addrError(input, 'IPv4 field has octet with leading zero');
    if (Number(field) > 255) throw addrError(input, 'IPv4 field has value >255');
    if (out.length === 3) throw addrError(input, 'IPv4 address too long');
    out.push(Number(field));
    field = '';
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') field += c;
    else if (c === '.') flush(i);
    else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (field === '' || out.length < 3) throw addrError(input, 'IPv4 address too short');
  out.push(Number(field));
  if (field.length > 1 && field.startsWith('0'))
    throw addrError(input, 'IPv4 field has octet with leading zero');
  if (Number(field) > 255) throw addrError(input, 'IPv4 field has value >255');
  return out;
}

/** The 16 bytes of an IPv6 address (with an optional trailing dotted quad). */
function parseIPv6(s: string): number[] {
  const halves = s.split('::');
  if (halves.length > 2) throw addrError(s, 'multiple :: in address', s);
  const groups = (h: string, last: boolean): number[] => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    parts.forEach((p, i) => {
      if (last && i === parts.length - 1 && p.includes('.')) {
        const v4 = parseIPv4(p, s);
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(parseInt(p, 16));
      else if (p === '')
        throw addrError(s, 'each colon-separated field must have at least one digit', p);
      else if (p.length > 4 && /^[0-9a-fA-F]+$/.test(p))
        throw addrError(s, 'IPv6 field has value >=2^16', p);
      else throw addrError(s, 'unexpected character', p.replace(/^[0-9a-fA-F]+/, ''));
    });
    return out;
  };
  const head = groups(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groups(halves[1]!, true) : [];
  const n = head.length + tail.length;
  if (halves.length === 1 && n < 8) throw addrError(s, 'address string too short');
  if (n > 8 || (halves.length === 2 && n === 8))
    throw addrError(s, 'trailing garbage after address');
  const all = [...head, ...new Array<number>(8 - n).fill(0), ...tail];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** netip.ParseAddr: the bytes and zone of an address, or its error. */
export function netipParseAddr(raw: string): Addr & { zone: string } {
  const kind = /[.:%]/.exec(raw)?.[0];
  if (kind === '.') return { bytes: parseIPv4(raw), zone: '' };
  if (kind === '%') throw addrError(raw, 'missing IPv6 address');
  if (kind !== ':') throw addrError(raw, 'unable to parse IP');
  const z = raw.indexOf('%');
  if (z === raw.length - 1) throw addrError(raw, 'zone must be a non-empty string');
  return { bytes: parseIPv6(z < 0 ? raw : raw.slice(0, z)), zone: z < 0 ? '' : raw.slice(z + 1) };
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
