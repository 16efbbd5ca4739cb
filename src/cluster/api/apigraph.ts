/**
 * The type graph of every built-in kind, generated from the pinned release's own Go types
 * (tools/apigen reads k8s.io/api, apimachinery, apiextensions-apiserver and kube-aggregator by
 * reflection; scripts/apigen runs it from the build). The Go struct tags are Kubernetes' own
 * definitions: JSON names, omitempty and the protobuf field numbers generated.proto was made from.
 *
 * This module turns the graph's data into shapes the protobuf codec and typed decoding walk.
 * Shapes are made on first use, so a kind that is never seen costs nothing.
 */
import { readFileSync } from 'node:fs';
import { generatedFile } from './apidata';

// Read once, when a bundle that decodes or encodes built-in kinds first loads this module (the
// engine, the CLI, the workers): one copy in the VSIX rather than one inside each bundle.
const graphJson: unknown = JSON.parse(readFileSync(generatedFile('api', 'types.json'), 'utf8'));

/** A type as the graph spells it: a basic kind, a named type's id, or an unnamed composite. */
type TypeExpr = string | { k: 'ptr' | 'slice' | 'array' | 'map'; e: TypeExpr; key?: TypeExpr };

interface GraphField {
  j: string;
  g: string;
  t: TypeExpr;
  o?: boolean;
  z?: boolean;
  i?: boolean;
  p?: string;
  ps?: string;
  pm?: string;
}

interface GraphType {
  k: 'struct' | 'named';
  s: string;
  f?: GraphField[];
  u?: TypeExpr;
  cj?: boolean;
  iz?: boolean;
  pm?: boolean;
}

interface Graph {
  release: string;
  kinds: Array<{ g: string; v: string; k: string; t: string }>;
  types: Record<string, GraphType>;
}

const graph = graphJson as unknown as Graph;

export type Scalar =
  | 'string'
  | 'bool'
  | 'int'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'float32'
  | 'float64';

/**
 * Types whose JSON (and for some, protobuf) is written by hand upstream: metav1.Time's RFC 3339,
 * Quantity's string, IntOrString's number-or-string, the raw JSON of RawExtension, FieldsV1 and
 * apiextensions' JSON, and the either-or schema types of apiextensions.
 */
export type Special =
  | 'time'
  | 'microtime'
  | 'duration'
  | 'quantity'
  | 'intorstring'
  | 'rawextension'
  | 'fieldsv1'
  | 'rawjson'
  | 'schemaorbool'
  | 'schemaorarray'
  | 'schemaorstringarray';

const META = 'k8s.io/apimachinery/pkg/apis/meta/v1.';
const APIEXT = ['v1', 'v1beta1'].map(
  (v) => `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/${v}.`,
);
const SPECIALS: Record<string, Special> = {
  [`${META}Time`]: 'time',
  [`${META}MicroTime`]: 'microtime',
  [`${META}Duration`]: 'duration',
  [`${META}FieldsV1`]: 'fieldsv1',
  'k8s.io/apimachinery/pkg/api/resource.Quantity': 'quantity',
  'k8s.io/apimachinery/pkg/util/intstr.IntOrString': 'intorstring',
  'k8s.io/apimachinery/pkg/runtime.RawExtension': 'rawextension',
  ...Object.fromEntries(
    APIEXT.flatMap((p) => [
      [`${p}JSON`, 'rawjson'],
      [`${p}JSONSchemaPropsOrBool`, 'schemaorbool'],
      [`${p}JSONSchemaPropsOrArray`, 'schemaorarray'],
      [`${p}JSONSchemaPropsOrStringArray`, 'schemaorstringarray'],
    ]),
  ),
};

export type Shape =
  | { k: 'scalar'; s: Scalar; name: string }
  /** []byte: base64 in JSON, a bytes field on the wire. */
  | { k: 'bytes'; name: string }
  /** interface{}: never on the wire. */
  | { k: 'any'; name: string }
  | { k: 'ptr'; elem: Shape; name: string }
  /** `wrapped`: a named slice type (metav1.Verbs), a message of `repeated items = 1` on the wire. */
  | { k: 'slice'; elem: Shape; name: string; wrapped: boolean }
  | { k: 'map'; key: Shape; elem: Shape; name: string }
  | { k: 'struct'; t: StructInfo; name: string }
  /** `t`: the struct the special type is made of, for those whose protobuf is their fields'. */
  | { k: 'special'; s: Special; t: StructInfo; name: string; isZeroMethod: boolean };

export type WireKind = 'varint' | 'fixed64' | 'fixed32' | 'bytes';

export interface FieldInfo {
  /** The position among the struct's fields (Go declaration order): where its value is kept. */
  index: number;
  goName: string;
  /** JSON name; "" for an inlined struct, "-" when never in JSON. */
  json: string;
  omitEmpty: boolean;
  omitZero: boolean;
  inline: boolean;
  shape: Shape;
  /** The protobuf field number; undefined when the field is not on the wire. */
  number?: number;
  patchStrategy?: string;
  patchMergeKey?: string;
}

export interface StructInfo {
  id: string;
  /** As reflect prints it: `v1.Deployment`. */
  name: string;
  fields: FieldInfo[];
  /** Fields on the wire, by number. */
  byNumber: Map<number, FieldInfo>;
  /** Fields on the wire in ascending number, the order Kubernetes' generated Marshal writes. */
  wireOrder: FieldInfo[];
}

export const kubernetesRelease = graph.release;

const shapes = new Map<string, Shape>();

function fieldNumber(tag: string | undefined): number | undefined {
  if (!tag || tag === '-') return undefined;
  const n = Number(tag.split(',')[1]);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** A struct's fields are read from the graph when first asked for (types refer to each other). */
function structInfo(id: string, t: GraphType): StructInfo {
  const info = { id, name: t.s } as StructInfo;
  // On first use, the fields are read and the accessors replaced by the values they made.
  const compile = () => {
    const fields: FieldInfo[] = (t.f ?? []).map((f, index) => ({
      index,
      goName: f.g,
      json: f.j,
      omitEmpty: !!f.o,
      omitZero: !!f.z,
      inline: !!f.i,
      shape: shapeOf(f.t),
      number: fieldNumber(f.p),
      ...(f.ps ? { patchStrategy: f.ps } : {}),
      ...(f.pm ? { patchMergeKey: f.pm } : {}),
    }));
    const onWire = fields.filter((f) => f.number !== undefined);
    Object.defineProperties(info, {
      fields: { value: fields, enumerable: true },
      byNumber: { value: new Map(onWire.map((f) => [f.number!, f])), enumerable: true },
      wireOrder: { value: onWire.sort((a, b) => a.number! - b.number!), enumerable: true },
    });
  };
  for (const key of ['fields', 'byNumber', 'wireOrder'] as const)
    Object.defineProperty(info, key, {
      configurable: true,
      get() {
        compile();
        return info[key];
      },
    });
  return info;
}

function namedShape(id: string): Shape {
  const cached = shapes.get(id);
  if (cached) return cached;
  const t = graph.types[id];
  if (!t) throw new Error(`the API graph has no type ${id}`);
  const special = SPECIALS[id];
  let shape: Shape;
  if (special) {
    shape = { k: 'special', s: special, t: structInfo(id, t), name: t.s, isZeroMethod: !!t.iz };
  } else if (t.cj) {
    // A type that marshals itself to JSON and that this codec does not know: refuse loudly.
    throw new Error(`${t.s} marshals itself to JSON; the API graph's codec does not know how`);
  } else if (t.k === 'struct') {
    shape = { k: 'struct', t: structInfo(id, t), name: t.s };
  } else {
    const u = shapeOf(t.u!, t.s);
    // A named slice with a Marshal of its own is a message on the wire (Verbs, ExtraValue).
    shape = u.k === 'slice' ? { ...u, wrapped: !!t.pm } : u;
  }
  shapes.set(id, shape);
  return shape;
}

/** The shape of a type expression; `name` is the named type's, when it is one. */
function shapeOf(e: TypeExpr, name?: string): Shape {
  if (typeof e === 'string') {
    if (e.includes('.')) return namedShape(e);
    if (e === 'bytes') return { k: 'bytes', name: name ?? '[]uint8' };
    if (e === 'interface') return { k: 'any', name: name ?? 'interface {}' };
    return { k: 'scalar', s: e as Scalar, name: name ?? e };
  }
  switch (e.k) {
    case 'ptr': {
      const elem = shapeOf(e.e);
      return { k: 'ptr', elem, name: name ?? `*${elem.name}` };
    }
    case 'slice':
    case 'array': {
      const elem = shapeOf(e.e);
      return { k: 'slice', elem, name: name ?? `[]${elem.name}`, wrapped: false };
    }
    case 'map': {
      const key = shapeOf(e.key!);
      const elem = shapeOf(e.e);
      return { k: 'map', key, elem, name: name ?? `map[${key.name}]${elem.name}` };
    }
  }
}

/** The Go type's shape, by its id (`k8s.io/api/apps/v1.Deployment`). */
export function typeShape(id: string): Shape {
  return namedShape(id);
}

const byKind = new Map<string, string>(
  graph.kinds.map((k) => [`${k.g ? `${k.g}/` : ''}${k.v}/${k.k}`, k.t]),
);

/** Structs found by kindStruct, by apiVersion then kind: asked once per object coded. */
const structsByKind = new Map<string, Map<string, StructInfo | undefined>>();

/** The struct an `apiVersion` + `kind` decodes into, if the API serves it. */
export function kindStruct(apiVersion: string, kind: string): StructInfo | undefined {
  let kinds = structsByKind.get(apiVersion);
  if (!kinds) structsByKind.set(apiVersion, (kinds = new Map()));
  if (kinds.has(kind)) return kinds.get(kind);
  const id = byKind.get(`${apiVersion}/${kind}`);
  const s = id === undefined ? undefined : namedShape(id);
  const t = s?.k === 'struct' ? s.t : undefined;
  // Only served versions are kept: a client's made-up apiVersions do not grow the map.
  if (id !== undefined) kinds.set(kind, t);
  else if (kinds.size === 0) structsByKind.delete(apiVersion);
  return t;
}

/** The shape of the Go type an `apiVersion` + `kind` decodes into, if the API serves it. */
export function kindShape(apiVersion: string, kind: string): Shape | undefined {
  const id = byKind.get(`${apiVersion}/${kind}`);
  return id ? namedShape(id) : undefined;
}

/** Every served kind: its apiVersion, kind and struct. */
export function allKinds(): Array<{ apiVersion: string; kind: string; type: string }> {
  return graph.kinds.map((k) => ({
    apiVersion: k.g ? `${k.g}/${k.v}` : k.v,
    kind: k.k,
    type: k.t,
  }));
}

/** The wire type a field of this shape is written with (its elements', for a repeated field). */
export function wireKind(shape: Shape): WireKind {
  const s = shape.k === 'ptr' ? shape.elem : shape;
  if (s.k !== 'scalar') return 'bytes';
  if (s.s === 'string') return 'bytes';
  if (s.s === 'float64') return 'fixed64';
  if (s.s === 'float32') return 'fixed32';
  return 'varint';
}

const jsonFieldMaps = new WeakMap<StructInfo, Map<string, FieldInfo>>();

/** A struct's fields by JSON name, an inlined struct's among them (Go promotes them). */
export function jsonFields(t: StructInfo): Map<string, FieldInfo> {
  let m = jsonFieldMaps.get(t);
  if (!m) {
    m = new Map();
    // The struct's own fields first: they win over an inlined struct's of the same name.
    const add = (s: StructInfo) => {
      for (const f of s.fields)
        if (!f.inline && f.json !== '-' && !m!.has(f.json)) m!.set(f.json, f);
      for (const f of s.fields) {
        const inner = f.shape.k === 'ptr' ? f.shape.elem : f.shape;
        if (f.inline && inner.k === 'struct') add(inner.t);
      }
    };
    add(t);
    jsonFieldMaps.set(t, m);
  }
  return m;
}
