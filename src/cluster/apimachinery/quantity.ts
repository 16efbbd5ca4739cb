/**
 * resource.Quantity: parses `500m`, `1Gi`, `2e3` into a number and prints sums back in canonical
 * form (binary suffixes stay binary, as Quantity.String() does), for quota arithmetic and messages.
 */

const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const BINARY: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  value: number;
  format: QuantityFormat;
}

const RE =
  /^([+-]?[0-9]*\.?[0-9]+|[+-]?[0-9]+\.)(([eE][-+]?[0-9]+)|[numkMGTPE]|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

export function parseQuantityFull(v: unknown): Quantity | undefined {
  if (typeof v === 'number')
    return Number.isFinite(v) ? { value: v, format: 'DecimalSI' } : undefined;
  if (typeof v !== 'string') return undefined;
  const m = RE.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const suffix = m[2] ?? '';
  if (suffix in BINARY) return { value: n * BINARY[suffix], format: 'BinarySI' };
  if (/^[eE]/.test(suffix))
    return { value: n * 10 ** Number(suffix.slice(1)), format: 'DecimalExponent' };
  return { value: n * DECIMAL[suffix], format: 'DecimalSI' };
}

export function parseQuantity(v: unknown): number | undefined {
  return parseQuantityFull(v)?.value;
}

function round(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

export function formatQuantity(value: number, format: QuantityFormat = 'DecimalSI'): string {
  const v = round(value);
  if (v === 0) return '0';
  if (format === 'BinarySI' && Number.isInteger(v) && Math.abs(v) >= 1024) {
    for (const s of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) {
      const b = BINARY[s];
      if (Math.abs(v) >= b && v % b === 0) return `${v / b}${s}`;
    }
  }
  if (Number.isInteger(v)) {
    for (const s of ['E', 'P', 'T', 'G', 'M', 'k']) {
      const d = DECIMAL[s];
      if (Math.abs(v) >= d && v % d === 0 && format !== 'BinarySI') return `${v / d}${s}`;
    }
    return String(v);
  }
  for (const s of ['m', 'u', 'n']) {
    const scaled = round(v / DECIMAL[s]);
    if (Number.isInteger(scaled)) return `${scaled}${s}`;
  }
  return `${Math.ceil(v / 1e-9)}n`;
}
