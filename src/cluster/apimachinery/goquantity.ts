/**
 * resource.Quantity as the Go value it is, not as a number: ParseQuantity's choice between the
 * int64Amount fast path and an inf.Dec, whether it keeps the string it parsed (only when that
 * string is already canonical), and String()'s canonical form. The pod-template-hash hashes a
 * dump of these unexported fields, so they must be exactly upstream's
 * (k8s.io/apimachinery/pkg/api/resource: quantity.go, amount.go, suffix.go). quantity.ts's
 * float arithmetic is for quota and messages; this is for identity.
 */

export type GoQuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI' | '';

/** The fields of a Quantity: `i` (value, scale), or `d` (an inf.Dec) when `dec` is set; `s`; Format. */
export interface GoQuantity {
  value: bigint;
  scale: number;
  dec?: { unscaled: bigint; scale: number };
  s: string;
  format: GoQuantityFormat;
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const fitsInt64 = (v: bigint) => v >= INT64_MIN && v <= INT64_MAX;
/** maxInt64Factors: the decimal digits an int64 always holds. */
const MAX_INT64_FACTORS = 18;
const NANO = -9;

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = {
  Ki: 10,
  Mi: 20,
  Gi: 30,
  Ti: 40,
  Pi: 50,
  Ei: 60,
};
const decimalSuffixOf = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const binarySuffixOf = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s]));

/** quantitySuffixer.interpret: base, exponent and format of a suffix. */
function interpret(
  suffix: string,
): { base: 10 | 2; exponent: number; format: GoQuantityFormat } | undefined {
  if (suffix in DECIMAL_SUFFIXES)
    return { base: 10, exponent: DECIMAL_SUFFIXES[suffix], format: 'DecimalSI' };
  if (suffix in BINARY_SUFFIXES)
    return { base: 2, exponent: BINARY_SUFFIXES[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'E' || suffix[0] === 'e')) {
    // strconv.ParseInt(suffix[1:], 10, 64), then int32(parsed).
    if (!/^[+-]?\d+$/.test(suffix.slice(1))) return undefined;
    const parsed = BigInt(suffix.slice(1));
    if (!fitsInt64(parsed)) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** parseQuantityString: sign, the numeric part, numerator, denominator and suffix. */
function split(
  str: string,
): { positive: boolean; value: string; num: string; denom: string; suffix: string } | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: '', suffix: '' };
  pos = i;
  if (num.length === 0) num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && 'eEinumkKMGTP'.includes(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  for (i = pos; i < end; i++) if (!isDigit(str[i])) return undefined;
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** inf.Dec's SetString: digits with at most one point, a leading sign. */
function decOf(value: string): { unscaled: bigint; scale: number } | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(value);
  if (!m || (m[2] + (m[3] ?? '')).length === 0) return undefined;
  const digits = m[2] + (m[3] ?? '');
  const unscaled = BigInt(digits);
  return { unscaled: m[1] === '-' ? -unscaled : unscaled, scale: (m[3] ?? '').length };
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** inf.Dec.Round(x, scale, RoundUp): away from zero. */
function roundUp(unscaled: bigint, from: number, to: number): bigint {
  if (to >= from) return unscaled * pow10(to - from);
  const d = pow10(from - to);
  const q = unscaled / d;
  if (unscaled % d === 0n) return q;
  return unscaled < 0n ? q - 1n : q + 1n;
}

/** ParseQuantity; undefined where it answers an error. */
export function parseGoQuantity(str: string): GoQuantity | undefined {
  if (str.length === 0) return undefined;
  if (str === '0') return { value: 0n, scale: 0, s: str, format: 'DecimalSI' };
  const parts = split(str);
  if (!parts) return undefined;
  const { positive, value, num, denom } = parts;
  const suffix = interpret(parts.suffix);
  if (!suffix) return undefined;
  const { base, exponent } = suffix;
  let format = suffix.format;

  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = BigInt.asIntN(64, mantissa << BigInt(exponent));
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }

  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const parsed = BigInt(shifted);
      if (!fitsInt64(parsed)) return undefined;
      const product = parsed * mantissa;
      if (fitsInt64(product)) {
        const result = positive ? product : -product;
        // The string is kept only when it is the canonical form.
        const canonical =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (parsed & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { value: result, scale, s: canonical ? str : '', format };
      }
    }
  }

  const dec = decOf(value);
  if (!dec) return undefined;
  let { unscaled, scale: decScale } = dec;
  if (base === 10) decScale -= exponent;
  else unscaled *= 1n << BigInt(exponent);
  const negative = unscaled < 0n;
  if (negative) unscaled = -unscaled;
  if (unscaled !== 0n) {
    unscaled = roundUp(unscaled, decScale, -NANO);
    decScale = -NANO;
  }
  if (format === 'BinarySI' && compare(unscaled, decScale, INT64_MAX, 0) > 0) {
    unscaled = INT64_MAX;
    decScale = 0;
  }
  if (
    format === 'BinarySI' &&
    compare(unscaled, decScale, 1n, 0) < 0 &&
    compare(unscaled, decScale, 0n, 0) > 0
  )
    format = 'DecimalSI';
  if (negative) unscaled = -unscaled;
  return { value: 0n, scale: 0, dec: { unscaled, scale: decScale }, s: '', format };
}

/** Compares a·10^-as with b·10^-bs. */
function compare(a: bigint, as: number, b: bigint, bs: number): number {
  const s = Math.max(as, bs);
  const x = a * pow10(s - as);
  const y = b * pow10(s - bs);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The quantity as unscaled · 10^exponent. */
function amountOf(q: GoQuantity): { unscaled: bigint; exponent: number } {
  return q.dec
    ? { unscaled: q.dec.unscaled, exponent: -q.dec.scale }
    : { unscaled: q.value, exponent: q.scale };
}

function removeFactors(v: bigint, factor: bigint): { result: bigint; times: number } {
  let times = 0;
  while (v !== 0n && v % factor === 0n) {
    v /= factor;
    times++;
  }
  return { result: v, times };
}

/** Quantity.String(): `s` when kept, else CanonicalizeBytes. */
export function goQuantityString(q: GoQuantity): string {
  if (q.s) return q.s;
  const { unscaled, exponent } = amountOf(q);
  if (unscaled === 0n) return '0';
  let format = q.format;
  let integer: bigint | undefined;
  if (format === 'BinarySI') {
    if (compare(unscaled, -exponent, -1024n, 0) > 0 && compare(unscaled, -exponent, 1024n, 0) < 0)
      format = 'DecimalSI';
    else if (exponent >= 0) integer = unscaled * pow10(exponent);
    else if (unscaled % pow10(-exponent) === 0n) integer = unscaled / pow10(-exponent);
    // Not a whole number: shown as DecimalSI rather than rounded.
    else format = 'DecimalSI';
  } else if (format !== 'DecimalSI') format = 'DecimalExponent';

  if (format === 'BinarySI') {
    const { result, times } = removeFactors(integer!, 1024n);
    return `${result}${binarySuffixOf.get(times * 10) ?? ''}`;
  }
  const removed = removeFactors(unscaled, 10n);
  let amount = removed.result;
  let e = exponent + removed.times;
  // The exponent down to a multiple of 3 (Go's % keeps the dividend's sign, as JavaScript's).
  while (e % 3 !== 0) {
    amount *= 10n;
    e--;
  }
  const suffix = format === 'DecimalSI' ? (decimalSuffixOf.get(e) ?? '') : e === 0 ? '' : `e${e}`;
  return `${amount}${suffix}`;
}

/**
 * The Quantity kube-controller-manager holds for one sent as `str`: kube-apiserver parsed it and
 * stored its String(); the informer parsed that from protobuf. Undefined when it does not parse.
 */
export function quantityAsRead(str: string): GoQuantity | undefined {
  const sent = parseGoQuantity(str.trim());
  return sent && parseGoQuantity(goQuantityString(sent));
}

/**
 * ScaledValue: the quantity in units of 10^scale, rounded up (away from zero), as Value() (scale 0)
 * and MilliValue() (scale -3) answer it.
 */
export function goScaledValue(q: GoQuantity, scale: number): bigint {
  const [unscaled, exponent] = q.dec ? [q.dec.unscaled, -q.dec.scale] : [q.value, q.scale];
  const shift = exponent - scale;
  if (shift >= 0) return unscaled * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  const quotient = unscaled / div;
  if (unscaled % div === 0n) return quotient;
  return unscaled > 0n ? quotient + 1n : quotient - 1n;
}
