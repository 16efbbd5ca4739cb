/**
 * Kubernetes' CEL quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go):
 * `isQuantity(s)`, `quantity(s)` and the Quantity methods `compareTo`, `isGreaterThan`,
 * `isLessThan`, `add`, `sub` (a Quantity or an int), `sign`, `isInteger`, `asInteger` and
 * `asApproximateFloat`. A Quantity is held as its value, so `quantity('1Gi') == quantity('1024Mi')`.
 */
import type { CelValue } from '@bufbuild/cel';
import { CelScalar, celFunc, celMethod } from '@bufbuild/cel';
import { OPAQUE, expect, opaqueType } from './celopaque';
import { parseQuantity } from '../apimachinery/quantity';

const { BOOL, DOUBLE, INT, STRING } = CelScalar;

const QUANTITY = opaqueType<number>('quantity');

function parse(s: string): number {
  const v = parseQuantity(s);
  if (v === undefined)
    throw new Error(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  return v;
}

function cmp(a: CelValue, b: CelValue): bigint {
  const x = expect(QUANTITY, a);
  const y = expect(QUANTITY, b);
  return x < y ? -1n : x > y ? 1n : 0n;
}

/** The addend of add/sub: another Quantity, or an int. */
function amount(v: CelValue): number {
  return typeof v === 'bigint' ? Number(v) : expect(QUANTITY, v);
}

function asInt64(v: number): bigint | undefined {
  return Number.isInteger(v) && Number.isSafeInteger(v) ? BigInt(v) : undefined;
}

export const quantities = [
  celFunc('isQuantity', [STRING], BOOL, (s) => parseQuantity(s) !== undefined),
  celFunc('quantity', [STRING], OPAQUE, (s) => QUANTITY.wrap(parse(s))),
  celMethod('compareTo', OPAQUE, [OPAQUE], INT, function (o) {
    return cmp(this, o);
  }),
  celMethod('isGreaterThan', OPAQUE, [OPAQUE], BOOL, function (o) {
    return cmp(this, o) === 1n;
  }),
  celMethod('isLessThan', OPAQUE, [OPAQUE], BOOL, function (o) {
    return cmp(this, o) === -1n;
  }),
  celMethod('add', OPAQUE, [CelScalar.DYN], OPAQUE, function (o) {
    return QUANTITY.wrap(expect(QUANTITY, this) + amount(o));
  }),
  celMethod('sub', OPAQUE, [CelScalar.DYN], OPAQUE, function (o) {
    return QUANTITY.wrap(expect(QUANTITY, this) - amount(o));
  }),
  celMethod('sign', OPAQUE, [], INT, function () {
    return BigInt(Math.sign(expect(QUANTITY, this)));
  }),
  celMethod('isInteger', OPAQUE, [], BOOL, function () {
    return asInt64(expect(QUANTITY, this)) !== undefined;
  }),
  celMethod('asInteger', OPAQUE, [], INT, function () {
    const v = asInt64(expect(QUANTITY, this));
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  }),
  celMethod('asApproximateFloat', OPAQUE, [], DOUBLE, function () {
    return expect(QUANTITY, this);
  }),
];
