/**
 * The Go types of the built-in kinds for typed decoding (gotypes.ts), made from the API graph
 * generated from the pinned release (apigraph.ts): every field of every kind is declared, so an
 * undeclared one is dropped and reported as the apiserver's decoder does, and a value of the
 * wrong JSON kind is its UnmarshalTypeError. Custom resources decode as unstructured: only their
 * envelope and metadata are typed.
 */
import type { Shape, StructInfo } from './apigraph';
import { jsonFields, kindStruct, typeShape } from './apigraph';
import type { GoStruct, GoType } from './gotypes';

const structs = new Map<string, GoStruct>();

const INT64: GoType = { k: 'int', name: 'int64' };

/** The gotypes view of a shape: pointers read as their element, as Go's decoder reports them. */
function goType(shape: Shape): GoType {
  switch (shape.k) {
    case 'scalar':
      switch (shape.s) {
        case 'string':
          return shape.name === 'string' ? { k: 'string' } : { k: 'string', name: shape.name };
        case 'bool':
          return { k: 'bool' };
        case 'float32':
        case 'float64':
          return { k: 'float' };
        case 'int32':
          return { k: 'int', name: 'int32' };
        default:
          return INT64;
      }
    case 'bytes':
      return { k: 'bytes' };
    case 'any':
      return { k: 'any' };
    case 'ptr':
      return goType(shape.elem);
    case 'slice':
      return { k: 'slice', elem: goType(shape.elem) };
    case 'map':
      return { k: 'map', elem: goType(shape.elem), name: shape.name };
    case 'struct':
      return goStruct(shape.t);
    case 'special':
      switch (shape.s) {
        case 'time':
          return { k: 'time', name: shape.name };
        case 'microtime':
          return { k: 'time', name: shape.name, micro: true };
        case 'quantity':
          return { k: 'quantity' };
        case 'intorstring':
          return { k: 'intstr' };
        case 'duration':
          return { k: 'string', name: shape.name };
        default:
          // Raw JSON (RawExtension, FieldsV1, apiextensions' JSON) and the either-or schemas.
          return { k: 'any' };
      }
  }
}

/** Fields by JSON name; an inlined struct's fields are the outer struct's, as Go promotes them. */
function fieldsOf(t: StructInfo, into: GoStruct['fields']): GoStruct['fields'] {
  for (const [name, f] of jsonFields(t)) {
    const shape = f.shape;
    let made: GoType | undefined;
    into[name] = () => (made ??= goType(shape));
  }
  return into;
}

function goStruct(t: StructInfo): GoStruct {
  let s = structs.get(t.id);
  if (!s) {
    s = { k: 'struct', name: t.name, fields: {} };
    structs.set(t.id, s);
    fieldsOf(t, s.fields);
  }
  return s;
}

const objectMetaShape = typeShape('k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta');
export const OBJECT_META = goType(objectMetaShape) as GoStruct;

const UNSTRUCTURED: GoStruct = {
  k: 'struct',
  name: 'unstructured.Unstructured',
  fields: { apiVersion: { k: 'string' }, kind: { k: 'string' }, metadata: OBJECT_META },
  open: true,
};

/** The Go type an object of this group, version and kind decodes into. */
export function goTypeOf(group: string, version: string, kind: string, custom: boolean): GoStruct {
  if (custom) return UNSTRUCTURED;
  const t = kindStruct(group ? `${group}/${version}` : version, kind);
  return t ? goStruct(t) : UNSTRUCTURED;
}
