/**
 * kube-apiserver's internal PodSpec as encoding/json writes it, from the v1 PodSpec the fake
 * stores: what two of its messages print (a Job's immutable template is `json.Marshal` of it, a
 * Pod's forbidden update a diff of `json.MarshalIndent`). The layout is generated from the pinned
 * release (generated/internallayout.json, scripts/apigen-internallayout.mjs): every field of every
 * internal struct in declaration order under its Go name (the internal types have no JSON tags),
 * embedded structs flattened into their parent as encoding/json flattens them, zero values
 * written out (`""`, `0`, `false`, `null` for a nil pointer, slice or map), map keys sorted, and
 * the conversion's moves applied (a PodSpec's `hostNetwork` is its SecurityContext's HostNetwork).
 */
import { readFileSync } from 'node:fs';
import { generatedFile } from './apidata';

type Obj = Record<string, unknown>;

type GoType =
  | { k: 'string' | 'bool' | 'int' | 'uint' | 'float' | 'bytes' | 'any' }
  | { k: 'json'; n: string }
  | { k: 'ptr' | 'slice' | 'map'; e: GoType }
  | { k: 'struct'; n: string };

interface Field {
  g: string;
  t: GoType;
  /** The v1 JSON name the value comes from. */
  s?: string;
  /** Embedded: written as the parent's fields, read from the parent's v1 object. */
  a?: boolean;
}

interface Move {
  from: string;
  to: string[];
}

interface Struct {
  fields: Field[];
  moves?: Move[];
}

let layout: { root: string; structs: Record<string, Struct> } | undefined;

function structs(): Record<string, Struct> {
  layout ??= JSON.parse(readFileSync(generatedFile('internallayout.json'), 'utf8')) as {
    root: string;
    structs: Record<string, Struct>;
  };
  return layout.structs;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The zero value of a type that marshals itself, as its MarshalJSON writes it. */
function zeroOfMarshaler(name: string): unknown {
  if (name === 'resource.Quantity') return '0';
  if (name === 'intstr.IntOrString') return 0;
  return null; // metav1.Time and MicroTime: null; RawExtension: null
}

function render(t: GoType, v: unknown): unknown {
  switch (t.k) {
    case 'string':
      return typeof v === 'string' ? v : '';
    case 'bool':
      return v === true;
    case 'int':
    case 'uint':
    case 'float':
      return typeof v === 'number' ? v : 0;
    case 'bytes':
      return typeof v === 'string' ? v : null;
    case 'json':
      return v === undefined || v === null ? zeroOfMarshaler(t.n) : v;
    case 'ptr':
      return v === undefined || v === null ? null : render(t.e, v);
    case 'slice':
      return Array.isArray(v) ? v.map((x) => render(t.e, x)) : null;
    case 'map': {
      if (!isObj(v)) return null;
      const out: Obj = {};
      for (const k of Object.keys(v).sort()) out[k] = render(t.e, v[k]);
      return out;
    }
    case 'struct':
      return renderStruct(t.n, isObj(v) ? v : {});
    default:
      return v ?? null;
  }
}

function isZero(v: unknown): boolean {
  return v === null || v === '' || v === 0 || v === false;
}

/** The field types along `path` of Go names from struct `name`. */
function fieldAt(name: string, path: string[]): Field | undefined {
  const s = structs()[name];
  const [head, ...rest] = path;
  const f = s?.fields.find((x) => x.g === head);
  if (!f || !rest.length) return f;
  const t = f.t.k === 'ptr' ? f.t.e : f.t;
  return t.k === 'struct' ? fieldAt(t.n, rest) : undefined;
}

/** A conversion's move: the v1 value put at `to`, allocating the structs on the way, unless set. */
function applyMove(name: string, out: Obj, v1: Obj, m: Move): void {
  let at = out;
  let type = name;
  for (const step of m.to.slice(0, -1)) {
    const f = fieldAt(type, [step]);
    const t = f?.t.k === 'ptr' ? f.t.e : f?.t;
    if (!t || t.k !== 'struct') return;
    if (!isObj(at[step])) at[step] = renderStruct(t.n, {});
    at = at[step] as Obj;
    type = t.n;
  }
  const leaf = m.to[m.to.length - 1]!;
  const f = fieldAt(type, [leaf]);
  if (f && isZero(at[leaf])) at[leaf] = render(f.t, v1[m.from]);
}

function renderStruct(name: string, v1: Obj, out: Obj = {}): Obj {
  const s = structs()[name];
  if (!s) return out;
  for (const f of s.fields) {
    if (f.a && f.t.k === 'struct') renderStruct(f.t.n, v1, out);
    else out[f.g] = render(f.t, f.s === undefined ? undefined : v1[f.s]);
  }
  for (const m of s.moves ?? []) applyMove(name, out, v1, m);
  return out;
}

/** The internal core.PodSpec of a v1 PodSpec, as encoding/json would write it (in key order). */
export function internalPodSpec(v1: unknown): Obj {
  return renderStruct('core.PodSpec', isObj(v1) ? v1 : {});
}

/** encoding/json's HTML escaping of what JSON.stringify wrote (only strings hold these). */
function htmlSafe(json: string): string {
  return json.replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** json.Marshal of the internal PodSpec. */
export function marshalInternalPodSpec(v1: unknown): string {
  return htmlSafe(JSON.stringify(internalPodSpec(v1)));
}

/** json.MarshalIndent(spec, "", " ") of the internal PodSpec. */
export function marshalIndentInternalPodSpec(v1: unknown): string {
  return htmlSafe(JSON.stringify(internalPodSpec(v1), null, ' '));
}
