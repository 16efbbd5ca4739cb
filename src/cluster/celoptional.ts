/**
 * cel-go's optional type, which cel-es lacks, as far as `optionalOldSelf` rules use it: `oldSelf`
 * is `optional.none()` on create and `optional.of(old)` on update, read with `hasValue()`,
 * `value()` and `orValue(default)`.
 */
import type { CelValue } from '@bufbuild/cel';
import { CelScalar, celFunc, celMap, celMethod, isCelMap, mapType } from '@bufbuild/cel';

const { DYN, BOOL } = CelScalar;

/**
 * An optional is a map holding the value under a reserved key (or only the none marker), so
 * equality between optionals works as CEL's does.
 */
const SOME = '\u0000optional.of';
const NONE = '\u0000optional.none';

export function optionalOf(v: unknown): CelValue {
  return celMap(new Map([[SOME, v as CelValue]]));
}

export const OPTIONAL_NONE: CelValue = celMap(new Map([[NONE, true]]));

/** The optional's content: [true, value], [false] for none; throws for any other value. */
function unwrap(m: CelValue): [boolean, CelValue?] {
  if (isCelMap(m) && m.size === 1 && m.has(SOME)) return [true, m.get(SOME)];
  if (isCelMap(m) && m.size === 1 && m.has(NONE)) return [false];
  throw new Error('no such overload');
}

const ANY_MAP = mapType(DYN, DYN);

export const optionals = [
  celFunc('optional.of', [DYN], DYN, (v) => optionalOf(v)),
  celFunc('optional.none', [], DYN, () => OPTIONAL_NONE),
  celMethod('hasValue', ANY_MAP, [], BOOL, function () {
    return unwrap(this)[0];
  }),
  celMethod('value', ANY_MAP, [], DYN, function () {
    const [has, v] = unwrap(this);
    if (!has) throw new Error('optional.none() dereference');
    return v!;
  }),
  celMethod('orValue', ANY_MAP, [DYN], DYN, function (fallback) {
    const [has, v] = unwrap(this);
    return has ? v! : fallback;
  }),
];
