/**
 * Typed decoding: what decoding a JSON object into a Go struct of k8s.io/api checks, done on the
 * already-parsed value. Go's decoder (sigs.k8s.io/json, case-sensitive) refuses a value of the
 * wrong JSON kind with an UnmarshalTypeError naming the innermost struct and the JSON path of the
 * field (`json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type
 * string`), and drops fields the struct does not declare (reported as unknown fields).
 *
 * Types are described as data (apitypes.ts declares the built-in kinds). A struct marked `open`
 * is described only in part: its undeclared fields are kept, not reported, since the fake
 * cluster does not know all of them.
 */
import { parseGoQuantity } from '../apimachinery/goquantity';
import { parseMetaTime } from '../apimachinery/metatime';

/** The JSON kind of a value as Go's UnmarshalTypeError names it. */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

export type GoType =
  | { k: 'string'; name?: string }
  | { k: 'bool' }
  | { k: 'int'; name: 'int32' | 'int64' }
  | { k: 'float' }
  /** []byte: a base64 string. */
  | { k: 'bytes' }
  /** resource.Quantity: a string or a number. */
  | { k: 'quantity' }
  /** intstr.IntOrString. */
  | { k: 'intstr' }
  /** metav1.Time / MicroTime (`micro`): an RFC 3339 string (or null), stored as metatime.ts writes it. */
  | { k: 'time'; name: string; micro?: boolean }
  /** interface{}, runtime.RawExtension, or anything not described: every JSON value. */
  | { k: 'any' }
  | { k: 'map'; elem: GoType; name?: string }
  | { k: 'slice'; elem: GoType }
  | GoStruct;

export interface GoStruct {
  k: 'struct';
  /** Qualified as reflect prints it: `v1.ObjectMeta`. */
  name: string;
  /** Field types by JSON name; a function for recursive types. */
  fields: Record<string, GoType | (() => GoType)>;
  /** Only some fields are described: undeclared ones are kept, not reported. */
  open?: boolean;
}

/** The first type error, as Go's decoder saves it. */
export interface GoTypeError {
  /** The JSON kind found: `number`, `array`, `number 1.5`, ... */
  value: string;
  /** The Go type wanted, as reflect prints it. */
  type: string;
  /** The innermost struct's bare name (`ObjectMeta`), if the value is inside one. */
  struct?: string;
  /** JSON names of the struct fields leading to the value (map keys and indices not included). */
  field: string;
  /** The full path, with map keys and list indices (`.data.a`, `.spec.containers[0].name`). */
  path: string;
  /** A message of its own (a custom UnmarshalJSON), instead of the type error's. */
  message?: string;
  /** What the type wanted and what was found. */
  want: GoType['k'];
  found: unknown;
}

/** Go's rendering of a type error (UnmarshalTypeError.Error, or the custom unmarshaller's error). */
export function goTypeErrorMessage(e: GoTypeError): string {
  if (e.message) return e.message;
  if (e.struct !== undefined || e.field)
    return `json: cannot unmarshal ${e.value} into Go struct field ${e.struct ?? ''}.${e.field} of type ${e.type}`;
  return `json: cannot unmarshal ${e.value} into Go value of type ${e.type}`;
}

export function goTypeName(t: GoType): string {
  switch (t.k) {
    case 'string':
      return t.name ?? 'string';
    case 'bool':
      return 'bool';
    case 'int':
      return t.name;
    case 'float':
      return 'float64';
    case 'bytes':
      return '[]uint8';
    case 'quantity':
      return 'resource.Quantity';
    case 'intstr':
      return 'intstr.IntOrString';
    case 'time':
      return t.name;
    case 'any':
      return 'interface {}';
    case 'map':
      return t.name ?? `map[string]${goTypeName(t.elem)}`;
    case 'slice':
      return `[]${goTypeName(t.elem)}`;
    case 'struct':
      return t.name;
  }
}

export interface TypedDecodeResult {
  error?: GoTypeError;
  /** Paths of fields no struct declares (Go drops them; strict decoding reports them). */
  unknown: string[];
}

const INT_RANGE = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [-(2 ** 63), 2 ** 63 - 1] };

const QUANTITY_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * Checks `value` against `type`; with `prune`, deletes the fields closed structs do not declare.
 * Times are rewritten in place as the apiserver stores them (a Go round trip); with `timeErrors`,
 * a time that does not parse is the type's UnmarshalJSON error. Stops at the first type error.
 * Recursion is bounded by the request's depth limit.
 */
export function typedDecode(
  value: unknown,
  type: GoType,
  prune: boolean,
  timeErrors = true,
): TypedDecodeResult {
  const w = new Walker(prune, timeErrors);
  const error = w.walk(value, type);
  return error ? { error, unknown: w.unknown } : { unknown: w.unknown };
}

/**
 * The decoder's position, kept in mutable stacks (this runs on every write, so it allocates
 * nothing per value unless it reports something).
 */
class Walker {
  readonly unknown: string[] = [];
  /** The innermost struct's bare name. */
  private struct: string | undefined;
  /** JSON names of the struct fields on the way (Go's FieldStack). */
  private readonly fields: string[] = [];
  /** Every step on the way: field names, map keys (strings) and list indices (numbers). */
  private readonly steps: Array<string | number> = [];

  /** A time's stored form, for the caller holding the value to put in its place. */
  private replacement: string | undefined;

  constructor(
    private readonly prune: boolean,
    private readonly timeErrors: boolean,
  ) {}

  /** Walks `c[k]` and puts a rewritten time in its place. */
  private child(c: Record<string | number, unknown>, k: string | number, t: GoType) {
    const e = this.walk(c[k], t);
    if (this.replacement !== undefined) {
      c[k] = this.replacement;
      this.replacement = undefined;
    }
    return e;
  }

  private path(): string {
    return this.steps.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
  }

  private fail(v: unknown, t: GoType, value = jsonKind(v), message?: string): GoTypeError {
    return {
      value,
      type: goTypeName(t),
      ...(this.struct !== undefined ? { struct: this.struct } : {}),
      field: this.fields.join('.'),
      path: this.path(),
      ...(message ? { message } : {}),
      want: t.k,
      found: v,
    };
  }

  walk(v: unknown, t: GoType): GoTypeError | undefined {
    // null leaves any Go value as it is.
    if (v === null || t.k === 'any') return undefined;
    switch (t.k) {
      case 'string':
        return typeof v === 'string' ? undefined : this.fail(v, t);
      case 'time': {
        if (typeof v !== 'string') return this.fail(v, t);
        const r = parseMetaTime(v, t.micro === true);
        if ('error' in r) return this.timeErrors ? this.fail(v, t, 'string', r.error) : undefined;
        if (r.value !== v) this.replacement = r.value;
        return undefined;
      }
      case 'bool':
        return typeof v === 'boolean' ? undefined : this.fail(v, t);
      case 'float':
        return typeof v === 'number' ? undefined : this.fail(v, t);
      case 'int': {
        if (typeof v !== 'number') return this.fail(v, t);
        const [lo, hi] = INT_RANGE[t.name];
        return Number.isInteger(v) && v >= lo && v <= hi
          ? undefined
          : this.fail(v, t, `number ${v}`);
      }
      case 'bytes': {
        if (typeof v !== 'string') return this.fail(v, t);
        const at = base64ErrorOffset(v);
        return at === undefined
          ? undefined
          : this.fail(v, t, 'string', `illegal base64 data at input byte ${at}`);
      }
      case 'quantity':
        // Quantity.UnmarshalJSON parses the (trimmed) string there and then: one that does not
        // parse fails the decode, before any validation.
        if (typeof v === 'string')
          return parseGoQuantity(v.trim())
            ? undefined
            : this.fail(v, t, undefined, QUANTITY_MESSAGE);
        return typeof v === 'number' ? undefined : this.fail(v, t, undefined, QUANTITY_MESSAGE);
      case 'intstr':
        if (typeof v === 'string') return undefined;
        if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 31) return undefined;
        // IntOrString.UnmarshalJSON decodes a non-string into an int32, without field context.
        return {
          value: typeof v === 'number' ? `number ${v}` : jsonKind(v),
          type: 'int32',
          field: '',
          path: this.path(),
          want: 'int',
          found: v,
        };
      case 'map': {
        if (typeof v !== 'object' || Array.isArray(v)) return this.fail(v, t);
        for (const k in v) {
          this.steps.push(k);
          const e = this.child(v as Record<string, unknown>, k, t.elem);
          this.steps.pop();
          if (e) return e;
        }
        return undefined;
      }
      case 'slice': {
        if (!Array.isArray(v)) return this.fail(v, t);
        for (let i = 0; i < v.length; i++) {
          this.steps.push(i);
          const e = this.child(v as unknown[] as Record<number, unknown>, i, t.elem);
          this.steps.pop();
          if (e) return e;
        }
        return undefined;
      }
      case 'struct':
        if (typeof v !== 'object' || Array.isArray(v)) return this.fail(v, t);
        return this.fields_(v as Record<string, unknown>, t);
    }
  }

  private fields_(o: Record<string, unknown>, t: GoStruct): GoTypeError | undefined {
    const outer = this.struct;
    const bare = t.name.slice(t.name.lastIndexOf('.') + 1);
    for (const k of Object.keys(o)) {
      const f = t.fields[k];
      if (!f) {
        if (t.open) continue;
        this.steps.push(k);
        this.unknown.push(this.path().slice(1));
        this.steps.pop();
        if (this.prune) delete o[k];
        continue;
      }
      this.struct = bare;
      this.fields.push(k);
      this.steps.push(k);
      const e = this.child(o, k, typeof f === 'function' ? f() : f);
      this.steps.pop();
      this.fields.pop();
      this.struct = outer;
      if (e) return e;
    }
    return undefined;
  }
}

const B64 = /^[A-Za-z0-9+/]*$/;

/** base64.StdEncoding's CorruptInputError: the offset of the first byte that cannot be decoded. */
function base64ErrorOffset(s: string): number | undefined {
  const body = s.replace(/={1,2}$/, '');
  if (!B64.test(body)) return [...body].findIndex((c) => !/[A-Za-z0-9+/]/.test(c));
  if (s.length % 4 !== 0 || body.length % 4 === 1) return s.length - (s.length % 4 || 4);
  return undefined;
}
