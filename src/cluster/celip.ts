/**
 * The string checks of Kubernetes' CEL IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library
 * ip.go, cidr.go): `isIP(s)` and `isCIDR(s)` accept what Go's netip.ParseAddr / ParsePrefix
 * accept, minus zones and IPv4-mapped IPv6 addresses, as the apiserver does.
 */

/** The 16 bytes' 8 groups of an IPv6 address, or undefined when it does not parse. */
function ipv6Groups(s: string): number[] | undefined {
  let text = s;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (lastColon >= 0 && text.indexOf('.', lastColon) > 0) {
    // An embedded IPv4 address fills the last two groups.
    const v4 = ipv4Octets(text.slice(lastColon + 1));
    if (!v4) return undefined;
    tail.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const hex = (h: string) => (h === '' ? [] : h.split(':'));
  const head = hex(halves[0]!);
  const rest = halves.length === 2 ? hex(halves[1]!) : [];
  if (![...head, ...rest].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const n = head.length + rest.length + tail.length;
  const num = (g: string) => parseInt(g, 16);
  if (halves.length === 2) {
    if (n > 7) return undefined;
    const zeros = new Array<number>(8 - n).fill(0);
    return [...head.map(num), ...zeros, ...rest.map(num), ...tail];
  }
  return n === 8 ? [...head.map(num), ...tail] : undefined;
}

/** Dotted-quad IPv4 as netip parses it: four decimal octets, no leading zeros. */
function ipv4Octets(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return undefined;
    out.push(Number(p));
  }
  return out;
}

type Family = 4 | 6;

/** The family of an address netip accepts and the library allows, else undefined. */
function ipFamily(s: string): Family | undefined {
  if (ipv4Octets(s)) return 4;
  if (s.includes('%')) return undefined; // zones are refused
  const g = ipv6Groups(s);
  if (!g) return undefined;
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  return mapped ? undefined : 6;
}

export function isIP(s: string): boolean {
  return ipFamily(s) !== undefined;
}

export function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const family = ipFamily(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (!family || !/^(0|[1-9][0-9]{0,2})$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}
