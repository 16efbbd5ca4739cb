/**
 * The schema structured-merge-diff tracks fields by: which nodes are maps or structs owned field
 * by field, which are atomic (owned whole, `f:selector: {}`), and how each list's items are
 * told apart (atomic, a set of values `v:…`, or a map by its keys `k:{"port":80,"protocol":"TCP"}`).
 * kube-apiserver builds it from the OpenAPI models it serves (kube-openapi's schemaconv); so does
 * this, from the release's OpenAPI v2 definitions for built-in kinds and from the CRD's structural
 * schema for custom resources, with ObjectMeta's definition for their metadata.
 *
 * schemaconv's rules: `x-kubernetes-map-type: atomic` makes a struct or map atomic; a list is what
 * `x-kubernetes-list-type` says (`map` keyed by `x-kubernetes-list-map-keys`), else associative
 * when its `x-kubernetes-patch-strategy` includes merge (keyed by the patch merge key, if any),
 * else atomic. A node without a schema (RawExtension, preserved unknown fields) is "deduced": maps
 * field by field, lists atomic.
 */
import { openapiV2Text, openapiV3Paths, openapiV3Text } from '../api/apidata';
import type { JSONSchemaProps } from '../apiextensions/jsonschema';
import { isObject } from '../apimachinery/patch';

/** A node of the schema. `field` gives a struct's or map's child (deduced when unknown). */
export type FieldType =
  | { k: 'map'; atomic: boolean; field(name: string): FieldType }
  | {
      k: 'list';
      rel: 'atomic' | 'set' | 'map';
      keys: readonly string[];
      elem: FieldType;
      /** The defaults of key fields the schema gives one (a ServicePort's `protocol: TCP`). */
      keyDefaults?: () => Readonly<Record<string, unknown>>;
    }
  | { k: 'scalar' }
  | { k: 'deduced' };

export const DEDUCED: FieldType = { k: 'deduced' };
const SCALAR: FieldType = { k: 'scalar' };

/** The OpenAPI v2 schema vocabulary read here (CRD schemas use the same keys). */
interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  allOf?: Schema[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
  default?: unknown;
}

interface Definitions {
  defs: Record<string, Schema>;
  /** `apiVersion/kind` → definition name. */
  byKind: Map<string, string>;
  types: Map<string, FieldType>;
}

let definitions: Definitions | undefined;
function defs(): Definitions {
  if (definitions) return definitions;
  const d = (JSON.parse(openapiV2Text()) as { definitions: Record<string, Schema> }).definitions;
  const byKind = new Map<string, string>();
  for (const [name, s] of Object.entries(d)) {
    for (const gvk of s['x-kubernetes-group-version-kind'] ?? []) {
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      // A definition of its own wins over one shared by many kinds (DeleteOptions, WatchEvent).
      if (!byKind.has(`${apiVersion}/${gvk.kind}`) || name.endsWith(`.${gvk.kind}`))
        byKind.set(`${apiVersion}/${gvk.kind}`, name);
    }
  }
  return (definitions = { defs: d, byKind, types: new Map() });
}

const REF = '#/definitions/';

/** The field type of a schema node; `$ref`s are resolved (and cached) by definition name. */
function typeOf(s: Schema | undefined, d: Definitions): FieldType {
  if (!s) return DEDUCED;
  const ref = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0].$ref : undefined);
  if (ref?.startsWith(REF)) return named(ref.slice(REF.length), d);
  return build(s, d);
}

/**
 * kube-openapi's schemaconv hard-codes two definitions: a RawExtension is untyped and atomic
 * (`__untyped_atomic_`: a ControllerRevision's `data` is owned whole), a Quantity a scalar.
 */
const HARD_CODED: Record<string, FieldType> = {
  'io.k8s.apimachinery.pkg.runtime.RawExtension': {
    k: 'map',
    atomic: true,
    field: () => DEDUCED,
  },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': SCALAR,
};

function named(name: string, d: Definitions): FieldType {
  const hard = HARD_CODED[name];
  if (hard) return hard;
  let t = d.types.get(name);
  if (t) return t;
  const s = d.defs[name];
  if (!s) return DEDUCED;
  // Built lazily (fields resolve on first use), so recursive definitions terminate.
  t = build(s, d);
  d.types.set(name, t);
  return t;
}

function listOf(s: Schema, elem: FieldType): FieldType {
  const lt = s['x-kubernetes-list-type'];
  if (lt === 'atomic') return { k: 'list', rel: 'atomic', keys: [], elem };
  if (lt === 'set') return { k: 'list', rel: 'set', keys: [], elem };
  const keyed = (keys: string[]): FieldType => ({
    k: 'list',
    rel: 'map',
    keys,
    elem,
    keyDefaults: keyDefaultsOf(s.items, keys),
  });
  if (lt === 'map') return keyed(s['x-kubernetes-list-map-keys'] ?? []);
  if (s['x-kubernetes-patch-strategy']?.split(',').includes('merge')) {
    const key = s['x-kubernetes-patch-merge-key'];
    return key ? keyed([key]) : { k: 'list', rel: 'set', keys: [], elem };
  }
  return { k: 'list', rel: 'atomic', keys: [], elem };
}

/**
 * The defaults of a keyed list's key fields, read on first use: structured-merge-diff keys an
 * item that omits a key field by the field's schema default (getAssociativeKeyDefault), so an
 * applied Service port without a protocol is `k:{"port":80,"protocol":"TCP"}`. A CRD's schema
 * holds its defaults inline; the served OpenAPI v2 drops them, so a built-in definition's come
 * from the v3 documents, which keep them.
 */
function keyDefaultsOf(
  items: Schema | undefined,
  keys: readonly string[],
): () => Readonly<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  return () => {
    if (found) return found;
    found = {};
    const ref = items?.$ref ?? (items?.allOf?.length === 1 ? items.allOf[0].$ref : undefined);
    const props = ref?.startsWith(REF)
      ? v3Definition(ref.slice(REF.length))?.properties
      : items?.properties;
    for (const k of keys) {
      const dflt = props?.[k]?.default;
      if (dflt !== undefined) found[k] = dflt;
    }
    return found;
  };
}

let v3Definitions: Map<string, Schema> | undefined;
/** A definition of the release's OpenAPI v3 documents (every document read once, on first use). */
function v3Definition(name: string): Schema | undefined {
  if (!v3Definitions) {
    v3Definitions = new Map();
    for (const path of openapiV3Paths()) {
      const doc = JSON.parse(openapiV3Text(path) ?? '{}') as {
        components?: { schemas?: Record<string, Schema> };
      };
      for (const [n, schema] of Object.entries(doc.components?.schemas ?? {}))
        if (!v3Definitions.has(n)) v3Definitions.set(n, schema);
    }
  }
  return v3Definitions.get(name);
}

function build(s: Schema, d: Definitions): FieldType {
  if (s['x-kubernetes-int-or-string']) return SCALAR;
  if (s.type === 'array') return listOf(s, typeOf(s.items, d));
  const props = s.properties;
  const extra = s.additionalProperties;
  if (s.type === 'object' || props || isObject(extra)) {
    const atomic = s['x-kubernetes-map-type'] === 'atomic';
    const cache = new Map<string, FieldType>();
    return {
      k: 'map',
      atomic,
      field(name) {
        let t = cache.get(name);
        if (t) return t;
        const p = props && Object.hasOwn(props, name) ? props[name] : undefined;
        if (p) t = typeOf(p, d);
        else if (isObject(extra)) t = typeOf(extra as Schema, d);
        else t = DEDUCED; // preserved unknown fields, or none the schema declares
        cache.set(name, t);
        return t;
      },
    };
  }
  if (s.type) return SCALAR;
  return DEDUCED;
}

/** The field type of a built-in kind, from the release's OpenAPI; undefined when not served. */
export function builtinFieldType(apiVersion: string, kind: string): FieldType | undefined {
  const d = defs();
  const name = d.byKind.get(`${apiVersion}/${kind}`);
  return name ? named(name, d) : undefined;
}

/** The field type of a custom resource: its CRD's schema, with ObjectMeta's for its metadata. */
export function customResourceFieldType(root: JSONSchemaProps | undefined): FieldType {
  const d = defs();
  const meta = named('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', d);
  const t = root ? build(root as Schema, d) : DEDUCED;
  return {
    k: 'map',
    atomic: false,
    field: (name) => (name === 'metadata' ? meta : t.k === 'map' ? t.field(name) : DEDUCED),
  };
}

/** A child of a struct or map (deduced below a deduced node). */
export function fieldOf(t: FieldType, name: string): FieldType {
  return t.k === 'map' ? t.field(name) : DEDUCED;
}

/** Whether the node is owned whole: an atomic struct or map, or an atomic list. */
export function isAtomic(t: FieldType): boolean {
  return (t.k === 'map' && t.atomic) || (t.k === 'list' && t.rel === 'atomic');
}

/**
 * The key of a list item as FieldsV1 writes it (`k:{"port":80,"protocol":"TCP"}`: the key fields
 * the item has, by name), or undefined when it has none of them.
 */
export function itemKey(t: FieldType, item: unknown): Record<string, unknown> | undefined {
  if (t.k !== 'list' || t.rel !== 'map' || !isObject(item)) return undefined;
  const key: Record<string, unknown> = {};
  let defaults: Readonly<Record<string, unknown>> | undefined;
  for (const k of [...t.keys].sort())
    if (item[k] !== undefined) key[k] = item[k];
    else if ((defaults ??= t.keyDefaults?.() ?? {})[k] !== undefined) key[k] = defaults[k];
  return Object.keys(key).length ? key : undefined;
}
