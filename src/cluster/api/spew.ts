/**
 * go-spew's `%#v` (format.go, common.go) as k8s.io/utils/dump.ForHash configures it — methods
 * disabled, map keys sorted, no pointer addresses or capacities — over a built-in kind's JSON,
 * read as the Go value of its type in the API graph. kube-controller-manager hashes this text
 * to name the ReplicaSets and ControllerRevisions it makes, so it must be byte for byte Go's:
 * a port, because no JavaScript library prints Go values (the text depends on Go's type names,
 * field order, unexported fields and nil-versus-empty, none of which a JSON object carries).
 *
 * The Go value is the one an informer holds, decoded from protobuf: an empty list or map is nil
 * (the wire cannot tell them apart), an absent pointer nil, and the special types are their
 * unexported insides (Quantity's int64Amount or inf.Dec, metav1.Time's time.Time).
 *
 * What spew writes, with `#`: a value's type in parentheses, then the value — except inside a
 * slice or map and behind a pointer, where the type is not repeated (a pointer there is `<*>`).
 * Strings are written raw, structs as `{Name:(type)value ...}`, slices `[a b]`, maps
 * `map[k:v ...]` sorted by key, nil slices, maps and pointers `<nil>`.
 */
import type { Shape } from './apigraph';
import { quantityAsRead, type GoQuantity } from '../apimachinery/goquantity';
import { parseGoTime } from './govalue';

/** A value's spew text. */
type Printer = (j: unknown) => string;

interface Printers {
  /** With the type in front: a struct field, or the top-level value. */
  typed: Printer;
  untyped: Printer;
}

const printers = new WeakMap<Shape, Printers>();

const ABOVE_D7FF = /[\ud800-\uffff]/;
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const isObject = (j: unknown): j is Record<string, unknown> =>
  typeof j === 'object' && j !== null && !Array.isArray(j);

/** The printers of a shape, made once (a struct's fields on its first value: types recurse). */
function printersOf(shape: Shape): Printers {
  let p = printers.get(shape);
  if (!p) {
    p = makePrinters(shape);
    printers.set(shape, p);
  }
  return p;
}

/** Printers whose text is `(name)` + the untyped text, the zero value's cached. */
function withType(name: string, untyped: Printer): Printers {
  const prefix = `(${name})`;
  let zero: string | undefined;
  const body: Printer = (j) => {
    if (j !== undefined && j !== null) return untyped(j);
    return (zero ??= untyped(undefined));
  };
  return { typed: (j) => prefix + body(j), untyped: body };
}

function makePrinters(shape: Shape): Printers {
  switch (shape.k) {
    case 'scalar':
      return withType(shape.name, scalarPrinter(shape.s));
    case 'bytes':
      return withType(shape.name, (j) => {
        if (typeof j !== 'string') return '<nil>';
        return `[${[...Buffer.from(j, 'base64')].join(' ')}]`;
      });
    case 'ptr': {
      const elem = printersOf(shape.elem);
      const prefix = `(${shape.name})`;
      return {
        typed: (j) => prefix + (j === undefined || j === null ? '<nil>' : elem.untyped(j)),
        untyped: (j) => (j === undefined || j === null ? '<nil>' : `<*>${elem.untyped(j)}`),
      };
    }
    case 'slice': {
      const elem = printersOf(shape.elem);
      return withType(shape.name, (j) => {
        if (!Array.isArray(j) || j.length === 0) return '<nil>';
        let out = '[';
        for (let i = 0; i < j.length; i++) out += (i ? ' ' : '') + elem.untyped(j[i]);
        return `${out}]`;
      });
    }
    case 'map': {
      if (shape.key.k !== 'scalar' || shape.key.s !== 'string')
        throw new Error(`spew: map keys of ${shape.name} are not strings, as no API map's are`);
      const elem = printersOf(shape.elem);
      return withType(shape.name, (j) => {
        if (!isObject(j)) return '<nil>';
        const keys = Object.keys(j);
        if (keys.length === 0) return '<nil>';
        // SortKeys: strings in Go's order, by their UTF-8 bytes — JavaScript's (by UTF-16 code
        // units) is the same unless a key holds a character above U+D7FF.
        if (keys.some((k) => ABOVE_D7FF.test(k))) keys.sort(byUtf8);
        else keys.sort();
        let out = 'map[';
        for (let i = 0; i < keys.length; i++)
          out += `${i ? ' ' : ''}${keys[i]}:${elem.untyped(j[keys[i]])}`;
        return `${out}]`;
      });
    }
    case 'struct': {
      const t = shape.t;
      let made: Array<{ label: string; json: string; inline: boolean; print: Printers }>;
      return withType(shape.name, (j) => {
        const fields = (made ??= t.fields.map((f) => ({
          label: `${f.goName}:`,
          json: f.json,
          inline: f.inline,
          print: printersOf(f.shape),
        })));
        const o = isObject(j) ? j : undefined;
        let out = '{';
        for (let i = 0; i < fields.length; i++) {
          const f = fields[i];
          const v = f.inline ? o : f.json === '-' ? undefined : o?.[f.json];
          out += (i ? ' ' : '') + f.label + f.print.typed(v);
        }
        return `${out}}`;
      });
    }
    case 'special':
      return withType(shape.name, specialPrinter(shape));
    case 'any':
      throw new Error(`spew: ${shape.name} holds any value; no pod template field does`);
  }
}

function scalarPrinter(s: Extract<Shape, { k: 'scalar' }>['s']): Printer {
  switch (s) {
    case 'string':
      return (j) => (typeof j === 'string' ? j : '');
    case 'bool':
      return (j) => (j === true ? 'true' : 'false');
    case 'float32':
    case 'float64':
      throw new Error(`spew: ${s} is printed with strconv's shortest %g; no pod template has one`);
    default:
      // Integers, signed or not, in decimal.
      return (j) => (typeof j === 'number' ? String(j) : typeof j === 'string' ? j : '0');
  }
}

const ZERO_TIME = '{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}';
/** Seconds from year 1 to 1970 (time's unixToInternal). */
const UNIX_TO_INTERNAL = 62135596800;

function specialPrinter(shape: Extract<Shape, { k: 'special' }>): Printer {
  switch (shape.s) {
    case 'time':
      return (j) => {
        if (typeof j !== 'string' || j === '') return ZERO_TIME;
        // Read from protobuf as time.Unix(seconds, 0).Local(): whole seconds, no monotonic
        // reading. The Local location is the process's; printed here as UTC's (nil).
        const ext = parseGoTime(j).s + UNIX_TO_INTERNAL;
        return `{Time:(time.Time){wall:(uint64)0 ext:(int64)${ext} loc:(*time.Location)<nil>}}`;
      };
    case 'quantity':
      return (j) => {
        // A Quantity is always on the wire (its String(), "0" when zero), never absent.
        const q =
          quantityAsRead(typeof j === 'number' ? String(j) : typeof j === 'string' ? j : '0') ??
          quantityAsRead('0')!;
        return quantityText(q);
      };
    case 'intorstring':
      return (j) =>
        typeof j === 'string'
          ? `{Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string)${j}}`
          : `{Type:(intstr.Type)0 IntVal:(int32)${typeof j === 'number' ? j : 0} StrVal:(string)}`;
    case 'fieldsv1':
      // Raw: the JSON bytes as sent (here as the object's compact JSON).
      return (j) =>
        j === undefined || j === null
          ? '{Raw:([]uint8)<nil>}'
          : `{Raw:([]uint8)[${[...Buffer.from(JSON.stringify(j), 'utf8')].join(' ')}]}`;
    default:
      throw new Error(`spew: ${shape.name} is not in a pod template`);
  }
}

/** A big.Int's magnitude as big.nat: 64-bit words, least significant first. */
function natWords(v: bigint): string {
  const words: string[] = [];
  for (; v > 0n; v >>= 64n) words.push(String(v & 0xffffffffffffffffn));
  return words.length ? `[${words.join(' ')}]` : '<nil>';
}

function quantityText(q: GoQuantity): string {
  const dec = q.dec
    ? `(*inf.Dec){unscaled:(big.Int){neg:(bool)${q.dec.unscaled < 0n} abs:(big.nat)${natWords(
        q.dec.unscaled < 0n ? -q.dec.unscaled : q.dec.unscaled,
      )}} scale:(inf.Scale)${q.dec.scale}}`
    : '(*inf.Dec)<nil>';
  return (
    `{i:(resource.int64Amount){value:(int64)${q.value} scale:(resource.Scale)${q.scale}} ` +
    `d:(resource.infDecAmount){Dec:${dec}} s:(string)${q.s} Format:(resource.Format)${q.format}}`
  );
}

/** spew's `%#v` of the Go value of `shape` that the JSON `j` decodes into. */
export function spewGoValue(shape: Shape, j: unknown): string {
  return printersOf(shape).typed(j);
}
