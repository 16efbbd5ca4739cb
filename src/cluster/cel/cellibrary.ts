/**
 * The CEL environment of CRD validation rules: @bufbuild/cel's standard library and its strings
 * extension, plus the Kubernetes libraries (k8s.io/apiserver/pkg/cel/library, cel-go's ext.Sets)
 * the apiserver's base environment holds at the version the fake cluster reports (1.32, whose CRD
 * writes compile against 1.31): the lists library (`isSorted`, `sum`, `min`, `max`, `indexOf`,
 * `lastIndexOf`), the regex library (`find`, `findAll`), the sets extension (`sets.contains`,
 * `sets.equivalent`, `sets.intersects`), the URL (celurl.ts), IP (celip.ts), CIDR (celcidr.ts),
 * format (celformat.ts) and quantity (celquantity.ts) libraries, and the optional functions of
 * `optionalOldSelf` rules (celoptional.ts). The semver library joins the base environment in 1.33,
 * so a rule calling `isSemver` here is refused as an undeclared reference, as 1.32 refuses it.
 */
import type { CelEnv, CelList, CelValue } from '@bufbuild/cel';
import {
  CelScalar,
  celEnv,
  celFunc,
  celMethod,
  isCelUint,
  isCelError,
  listType,
  parse,
  plan,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { cidrLibrary } from './celcidr';
import { formatLibrary } from './celformat';
import { ipLibrary } from './celip';
import { optionals } from './celoptional';
import { quantities } from './celquantity';
import { authzLibrary } from './celauthz';
import { jsonPatchLibrary } from './celjson';
import { urlLibrary } from './celurl';

const DYN_LIST = listType(CelScalar.DYN);
const { DYN, INT, STRING, BOOL } = CelScalar;

/** Orders two CEL values the way cel-go's Comparer does for the comparable scalar types. */
function compare(a: CelValue, b: CelValue): number {
  const num = (v: CelValue) => (isCelUint(v) ? v.value : v);
  const x = num(a);
  const y = num(b);
  if (
    (typeof x === 'bigint' || typeof x === 'number') &&
    (typeof y === 'bigint' || typeof y === 'number')
  )
    return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'string' && typeof y === 'string') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'boolean' && typeof y === 'boolean') return Number(x) - Number(y);
  throw new Error('no such overload');
}

/** Equality for list search: numbers compare across int/uint/double, lists and maps deeply. */
function same(a: CelValue, b: CelValue): boolean {
  try {
    return compare(a, b) === 0;
  } catch {
    return JSON.stringify(a, jsonSafe) === JSON.stringify(b, jsonSafe);
  }
}

function jsonSafe(_k: string, v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Map) return Object.fromEntries(v);
  if (v && typeof v === 'object' && Symbol.iterator in v && !Array.isArray(v))
    return [...(v as Iterable<unknown>)];
  return v;
}

function extreme(name: string, list: CelList, prefer: number): CelValue {
  let best: CelValue | undefined;
  for (const v of list) if (best === undefined || compare(best, v) === prefer) best = v;
  if (best === undefined) throw new Error(`${name} called on empty list`);
  return best;
}

/** sum(): 0 of the element type for an empty list, int and double sums otherwise. */
function sum(list: CelList): CelValue {
  let acc: bigint | number | undefined;
  for (const v of list) {
    const x = isCelUint(v) ? v.value : v;
    if (typeof x === 'bigint' && (acc === undefined || typeof acc === 'bigint'))
      acc = (acc ?? 0n) + x;
    else if (typeof x === 'number' && (acc === undefined || typeof acc === 'number'))
      acc = (acc ?? 0) + x;
    else throw new Error('no such overload');
  }
  return acc ?? 0n;
}

function indexIn(list: CelList, item: CelValue, fromEnd: boolean): bigint {
  const n = list.size;
  for (let k = 0; k < n; k++) {
    const i = fromEnd ? n - 1 - k : k;
    if (same(list.get(i)!, item)) return BigInt(i);
  }
  return -1n;
}

/** The regex library compiles with RE2 syntax; JS RegExp covers what rules use (no lookaround in RE2). */
function regex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'gu');
  } catch (err) {
    throw new Error(`Illegal regex: ${(err as Error).message}`);
  }
}

function findAll(s: string, pattern: string, limit: bigint): string[] {
  const out: string[] = [];
  if (limit === 0n) return out;
  for (const m of s.matchAll(regex(pattern))) {
    out.push(m[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

const lists = [
  celMethod('isSorted', DYN_LIST, [], BOOL, function () {
    let prev: CelValue | undefined;
    for (const v of this) {
      if (prev !== undefined && compare(prev, v) > 0) return false;
      prev = v;
    }
    return true;
  }),
  celMethod('sum', DYN_LIST, [], DYN, function () {
    return sum(this);
  }),
  celMethod('min', DYN_LIST, [], DYN, function () {
    return extreme('min', this, 1);
  }),
  celMethod('max', DYN_LIST, [], DYN, function () {
    return extreme('max', this, -1);
  }),
  celMethod('indexOf', DYN_LIST, [DYN], INT, function (item) {
    return indexIn(this, item, false);
  }),
  celMethod('lastIndexOf', DYN_LIST, [DYN], INT, function (item) {
    return indexIn(this, item, true);
  }),
];

const regexLibrary = [
  celMethod('find', STRING, [STRING], STRING, function (pattern) {
    return findAll(this, pattern, 1n)[0] ?? '';
  }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (pattern) {
    return findAll(this, pattern, -1n);
  }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (pattern, limit) {
    return findAll(this, pattern, limit);
  }),
];

const sets = [
  celFunc('sets.contains', [DYN_LIST, DYN_LIST], BOOL, (a, b) =>
    [...b].every((x) => [...a].some((y) => same(x, y))),
  ),
  celFunc('sets.equivalent', [DYN_LIST, DYN_LIST], BOOL, (a, b) => {
    const has = (l: CelList, x: CelValue) => [...l].some((y) => same(x, y));
    return [...a].every((x) => has(b, x)) && [...b].every((x) => has(a, x));
  }),
  celFunc('sets.intersects', [DYN_LIST, DYN_LIST], BOOL, (a, b) =>
    [...a].some((x) => [...b].some((y) => same(x, y))),
  ),
];

/** Functions and methods the Kubernetes environment adds, by name (for the compile-time check). */
export const KUBERNETES_FUNCTIONS = [
  ...lists,
  ...regexLibrary,
  ...sets,
  ...urlLibrary,
  ...ipLibrary,
  ...cidrLibrary,
  ...formatLibrary,
  ...quantities,
  ...optionals,
  ...strings,
];

let env: CelEnv | undefined;

/** One shared environment: building it indexes every overload, so it is made once. */
export function kubernetesCelEnv(): CelEnv {
  env ??= celEnv({ funcs: KUBERNETES_FUNCTIONS });
  return env;
}

let admissionEnv: CelEnv | undefined;

/**
 * Admission CEL's environment: the Kubernetes one, the authorizer library (celauthz.ts) and
 * `jsonpatch.escapeKey` (celjson.ts).
 */
export function admissionCelEnv(): CelEnv {
  admissionEnv ??= celEnv({
    funcs: [...KUBERNETES_FUNCTIONS, ...authzLibrary, ...jsonPatchLibrary],
  });
  return admissionEnv;
}

/** A planned cast (`duration(s)`, `timestamp(s)`) by the environment's own parser of the value. */
function caster(fn: 'duration' | 'timestamp'): (v: string) => CelValue | undefined {
  let run: ((b: { s: string }) => unknown) | undefined;
  return (v) => {
    run ??= plan(kubernetesCelEnv(), parse(`${fn}(s)`)) as (b: { s: string }) => unknown;
    const out = run({ s: v });
    return isCelError(out) ? undefined : (out as CelValue);
  };
}

/**
 * Strings whose schema format makes them a CEL duration or timestamp (SchemaDeclType's `duration`,
 * `date` and `date-time`); undefined when the string does not parse as one.
 */
export const asDuration = caster('duration');
const toTimestamp = caster('timestamp');
export function asTimestamp(v: string, format: 'date' | 'date-time'): CelValue | undefined {
  return toTimestamp(format === 'date' ? `${v}T00:00:00Z` : v);
}
