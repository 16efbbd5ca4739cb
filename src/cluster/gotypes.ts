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
  /** metav1.Time / MicroTime: a string (or null). */
  | { k: 'time'; name: string }
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

interface Ctx {
  struct?: string;
  fields: string[];
  path: string;
}

const INT_RANGE = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [-(2 ** 63), 2 ** 63 - 1] };

const QUANTITY_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * Checks `value` against `type`; with `prune`, deletes the fields closed structs do not declare.
 * Stops at the first type error. Iteration is bounded by the request's depth limit.
 */
export function typedDecode(value: unknown, type: GoType, prune: boolean): TypedDecodeResult {
  const unknown: string[] = [];
  const error = walk(value, type, { fields: [], path: '' }, prune, unknown);
  return { ...(error ? { error } : {}), unknown };
}

function walk(
  v: unknown,
  t: GoType,
  ctx: Ctx,
  prune: boolean,
  unknown: string[],
): GoTypeError | undefined {
  // null leaves any Go value as it is.
  if (v === null || t.k === 'any') return undefined;
  const fail = (value = jsonKind(v), message?: string): GoTypeError => ({
    value,
    type: goTypeName(t),
    ...(ctx.struct !== undefined ? { struct: ctx.struct } : {}),
    field: ctx.fields.join('.'),
    path: ctx.path,
    ...(message ? { message } : {}),
    want: t.k,
    found: v,
  });
  switch (t.k) {
    case 'string':
    case 'time':
      return typeof v === 'string' ? undefined : fail();
    case 'bool':
      return typeof v === 'boolean' ? undefined : fail();
    case 'float':
      return typeof v === 'number' ? undefined : fail();
    case 'int': {
      if (typeof v !== 'number') return fail();
      const [lo, hi] = INT_RANGE[t.name];
      return Number.isInteger(v) && v >= lo && v <= hi ? undefined : fail(`number ${v}`);
    }
    case 'bytes':
      if (typeof v !== 'string') return fail();
      return base64Error(v, ctx);
    case 'quantity':
      return typeof v === 'string' || typeof v === 'number'
        ? undefined
        : fail(undefined, QUANTITY_MESSAGE);
    case 'intstr':
      if (typeof v === 'string') return undefined;
      // IntOrString.UnmarshalJSON decodes a non-string into an int32, without field context.
      if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 31) return undefined;
      return {
        value: typeof v === 'number' ? `number ${v}` : jsonKind(v),
        type: 'int32',
        field: '',
        path: ctx.path,
        want: 'int',
        found: v,
      };
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return fail();
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const e = walk(x, t.elem, { ...ctx, path: `${ctx.path}.${k}` }, prune, unknown);
        if (e) return e;
      }
      return undefined;
    }
    case 'slice': {
      if (!Array.isArray(v)) return fail();
      for (let i = 0; i < v.length; i++) {
        const e = walk(v[i], t.elem, { ...ctx, path: `${ctx.path}[${i}]` }, prune, unknown);
        if (e) return e;
      }
      return undefined;
    }
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) return fail();
      const o = v as Record<string, unknown>;
      const bare = t.name.slice(t.name.lastIndexOf('.') + 1);
      for (const k of Object.keys(o)) {
        const f = t.fields[k];
        const path = `${ctx.path}.${k}`;
        if (!f) {
          if (t.open) continue;
          unknown.push(path.slice(1));
          if (prune) delete o[k];
          continue;
        }
        const ft = typeof f === 'function' ? f() : f;
        const e = walk(
          o[k],
          ft,
          { struct: bare, fields: [...ctx.fields, k], path },
          prune,
          unknown,
        );
        if (e) return e;
      }
      return undefined;
    }
  }
}

const B64 = /^[A-Za-z0-9+/]*$/;

/** base64.StdEncoding's CorruptInputError: the offset of the first byte that cannot be decoded. */
function base64Error(s: string, ctx: Ctx): GoTypeError | undefined {
  const body = s.replace(/={1,2}$/, '');
  const bad = B64.test(body) ? -1 : [...body].findIndex((c) => !/[A-Za-z0-9+/]/.test(c));
  let at = bad;
  if (at < 0 && (s.length % 4 !== 0 || body.length % 4 === 1)) at = s.length - (s.length % 4 || 4);
  if (at < 0) return undefined;
  return {
    value: 'string',
    type: '[]uint8',
    field: ctx.fields.join('.'),
    path: ctx.path,
    message: `illegal base64 data at input byte ${at}`,
    want: 'bytes',
    found: s,
  };
}
