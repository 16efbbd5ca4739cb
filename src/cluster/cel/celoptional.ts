/**
 * cel-go's optional type, which cel-es lacks, as far as `optionalOldSelf` rules use it: `oldSelf`
 * is `optional.none()` on create and `optional.of(old)` on update, read with `hasValue()`,
 * `value()` and `orValue(default)`.
 */
import type { CelList, CelValue } from '@bufbuild/cel';
import { CelScalar, celFunc, celList, celMethod } from '@bufbuild/cel';
import { OPAQUE, expect, opaqueType } from './celopaque';

const { DYN, BOOL } = CelScalar;

/** An optional holds [] (none) or [value]. */
const OPTIONAL = opaqueType<CelList>('optional');

export function optionalOf(v: unknown): CelValue {
  return OPTIONAL.wrap(celList([v as CelValue]));
}

export const OPTIONAL_NONE: CelValue = OPTIONAL.wrap(celList([]));

export const optionals = [
  celFunc('optional.of', [DYN], DYN, (v) => optionalOf(v)),
  celFunc('optional.none', [], DYN, () => OPTIONAL_NONE),
  celMethod('hasValue', OPAQUE, [], BOOL, function () {
    return expect(OPTIONAL, this).size > 0;
  }),
  celMethod('value', OPAQUE, [], DYN, function () {
    const content = expect(OPTIONAL, this);
    if (!content.size) throw new Error('optional.none() dereference');
    return content.get(0)!;
  }),
  celMethod('orValue', OPAQUE, [DYN], DYN, function (fallback) {
    const content = expect(OPTIONAL, this);
    return content.size ? content.get(0)! : fallback;
  }),
];
