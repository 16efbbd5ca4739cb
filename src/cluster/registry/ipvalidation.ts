/**
 * apimachinery's IP checks (util/validation/ip.go) and core's ValidateEndpointIP, as 1.36 runs
 * them: StrictIPCIDRValidation is on by default, so an address with leading zeros or an
 * IPv4-mapped IPv6 address is refused where the legacy (sloppy) parse would take it. The parsing
 * is the CEL library's port of netip (cel/celip.ts).
 */
import { fieldInvalid, type FieldError } from '../apimachinery/errors';
import { formatAddr, is4In6, netipParseAddr, type Addr } from '../cel/celip';

/** netutils.ParseIPSloppy: netip's parse, plus IPv4 parts with leading zeros (read as decimal). */
export function parseIPSloppy(value: string): Addr | undefined {
  try {
    const a = netipParseAddr(value);
    return a.zone ? undefined : { bytes: a.bytes };
  } catch {
    const parts = value.split('.');
    if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255))
      return undefined;
    return { bytes: parts.map(Number) };
  }
}

/** parseIP of ip.go: the address, and the errors strict validation adds. */
function parseIP(field: string, value: string): { ip?: Addr; errs: FieldError[] } {
  const ip = parseIPSloppy(value);
  if (!ip)
    return {
      errs: [
        fieldInvalid(field, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'),
      ],
    };
  const errs: FieldError[] = [];
  let strict: Addr | undefined;
  try {
    strict = netipParseAddr(value);
  } catch {
    errs.push(fieldInvalid(field, value, 'must not have leading 0s'));
  }
  if (strict && is4In6(strict))
    errs.push(fieldInvalid(field, value, 'must not be an IPv4-mapped IPv6 address'));
  return { ip, errs };
}

/** IsValidIPForLegacyField (strict, 1.36's default), without old values to keep. */
export function validIPForLegacyField(field: string, value: string): FieldError[] {
  return parseIP(field, value).errs;
}

/** IsValidIP: strict, and in canonical form. */
export function validIP(field: string, value: string): FieldError[] {
  const { ip, errs } = parseIP(field, value);
  if (errs.length || !ip) return errs;
  const canonical = net4In6String(ip);
  return value === canonical
    ? []
    : [fieldInvalid(field, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
}

/** net.IP.String(): an IPv4-mapped address prints as its IPv4 form. */
function net4In6String(ip: Addr): string {
  return is4In6(ip) ? ip.bytes.slice(12).join('.') : formatAddr(ip);
}

/** Whether the address is IPv4 (netutils.IsIPv4String: 4 bytes, or IPv4-mapped). */
export function isIPv4(ip: Addr): boolean {
  return ip.bytes.length === 4 || is4In6(ip);
}

/** ValidateEndpointIP: an address a Pod could have, not a special range. */
export function validEndpointIP(field: string, value: string): FieldError[] {
  const ip = parseIPSloppy(value);
  if (!ip) return [fieldInvalid(field, value, 'must be a valid IP address')];
  const v4 = isIPv4(ip) ? ip.bytes.slice(-4) : undefined;
  const b = ip.bytes;
  const errs: FieldError[] = [];
  const unspecified = v4 ? v4.every((x) => x === 0) : b.every((x) => x === 0);
  if (unspecified) errs.push(fieldInvalid(field, value, `may not be unspecified (${value})`));
  const loopback = v4 ? v4[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
  if (loopback)
    errs.push(
      fieldInvalid(field, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'),
    );
  const linkLocal = v4 ? v4[0] === 169 && v4[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
  if (linkLocal)
    errs.push(
      fieldInvalid(field, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'),
    );
  const linkLocalMulticast = v4
    ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0
    : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
  if (linkLocalMulticast)
    errs.push(
      fieldInvalid(
        field,
        value,
        'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
      ),
    );
  return errs;
}
