/** apimachinery's intstr helpers for the int-or-percent fields (maxUnavailable, minAvailable). */

/**
 * intstr.GetScaledValueFromIntOrPercent: an int as it is, a percent string of `total` rounded
 * up or down; anything else throws Go's error text.
 */
export function scaledValueFromIntOrPercent(v: unknown, total: number, roundUp: boolean): number {
  if (v === undefined || v === null) throw new Error('nil value for IntOrString');
  if (typeof v === 'number') return v;
  if (typeof v !== 'string')
    throw new Error('invalid value for IntOrString: invalid type: neither int nor percentage');
  if (!v.endsWith('%'))
    throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  const digits = v.slice(0, -1);
  if (!/^[+-]?\d+$/.test(digits))
    throw new Error(
      `invalid value for IntOrString: invalid value ${JSON.stringify(v)}: strconv.Atoi: parsing ${JSON.stringify(digits)}: invalid syntax`,
    );
  const x = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}
