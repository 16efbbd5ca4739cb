/**
 * The maps and structs an Update adds, which structured-merge-diff records as owned themselves
 * (the `.` entry of FieldsV1): its comparison of the old object with the new one inserts the path
 * of every node the old one lacked, beside the paths of its leaves. "The old one" is typed: for a
 * create it is the kind's zero value, whose non-pointer struct fields are present (so `spec`,
 * `spec.template` and `metadata` are never added, while `metadata.labels` or a pointer struct
 * such as `spec.strategy.rollingUpdate` are); a custom resource's zero value has only its
 * metadata. An item new to a list has no old value at all: every node in it is added.
 */
import { jsonFields, kindStruct, type Shape, type StructInfo } from '../api/apigraph';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { fieldOf, isAtomic, itemKey, type FieldType } from './fieldtypes';

type Obj = Record<string, unknown>;

/**
 * What a Go zero value holds: its non-pointer struct fields, each with its own zero value, and
 * its slices and maps that encoding/json writes as null (no omitempty: a Pod's `containers`),
 * which are there, so a list written into one is modified rather than added.
 */
const zeroTrees = new WeakMap<StructInfo, Obj>();
function zeroTree(t: StructInfo): Obj {
  let tree = zeroTrees.get(t);
  if (tree) return tree;
  tree = {};
  zeroTrees.set(t, tree);
  for (const [name, f] of jsonFields(t)) {
    if (f.shape.k === 'struct') tree[name] = zeroTree(f.shape.t);
    else if ((f.shape.k === 'slice' || f.shape.k === 'map') && !f.omitEmpty && !f.omitZero)
      tree[name] = null;
  }
  return tree;
}

function fieldShape(t: StructInfo | undefined, name: string): Shape | undefined {
  return t ? jsonFields(t).get(name)?.shape : undefined;
}

function structOf(shape: Shape | undefined): StructInfo | undefined {
  const s = shape?.k === 'ptr' ? shape.elem : shape;
  return s?.k === 'struct' ? s.t : undefined;
}

/**
 * Adds to `out` (as field-set entries joined by `sep`) the `.` of every non-empty map or struct
 * of `next` that `old` — typed, so with its zero value's structs — lacks. `skip` names top-level
 * fields outside the write (apiVersion, kind; status or all but status for a subresource).
 * `fields` is the kind's schema: an atomic node is a leaf (no `.`, nothing inside it), and a
 * list's items are paired by its keys.
 */
export function addedNodes(
  next: KubeObject,
  old: KubeObject | undefined,
  sep: string,
  skip: (field: string) => boolean,
  out: Set<string>,
  fields: FieldType,
): void {
  const t = kindStruct(next.apiVersion, next.kind);
  const baseline: Obj = t ? zeroTree(t) : { metadata: {} };
  // `path` is a field-set entry (segments joined by `sep`), built as a string: every write walks.
  const walk = (
    v: Obj,
    before: unknown,
    base: unknown,
    type: StructInfo | undefined,
    ft: FieldType,
    path: string,
  ) => {
    for (const k in v) {
      const child = v[k];
      if (path === '' && skip(k)) continue;
      const p = path === '' ? `f:${k}` : `${path}${sep}f:${k}`;
      const was = isObject(before) ? before[k] : undefined;
      const zero = isObject(base) ? base[k] : undefined;
      const childFt = fieldOf(ft, k);
      if (isAtomic(childFt)) continue; // owned whole, as a leaf
      if (isObject(child)) {
        if (isEmpty(child)) continue; // an empty map is a leaf of its own
        if (was === undefined && zero === undefined) out.add(`${p}${sep}.`);
        walk(child, was, zero, structOf(fieldShape(type, k)), childFt, p);
      } else if (Array.isArray(child) && childFt.k === 'list' && child.length) {
        // Items of a keyed list are paired by key (their own `.` comes with their key, as
        // fieldSet writes it); the nodes inside an item new to the list are all added. A list
        // whose items lack their keys is a leaf (fieldSet's fallback).
        const keys = child.map((x) => itemKey(childFt, x));
        if (childFt.rel === 'map' && !keys.every((key) => key !== undefined)) continue;
        // A keyed list or a set new to the object is owned itself too.
        if (was === undefined && zero === undefined) out.add(`${p}${sep}.`);
        if (childFt.rel !== 'map' || isAtomic(childFt.elem)) continue;
        const olds = Array.isArray(was) ? was : [];
        const itemType = structOf(elemShape(fieldShape(type, k)));
        child.forEach((item, i) => {
          const key = JSON.stringify(keys[i]);
          const before = olds.find((o) => JSON.stringify(itemKey(childFt, o)) === key);
          walk(item as Obj, before, undefined, itemType, childFt.elem, `${p}${sep}k:${key}`);
        });
      }
    }
  };
  walk(next as unknown as Obj, old, baseline, t, fields, '');
}

function isEmpty(o: Obj): boolean {
  for (const _ in o) return false;
  return true;
}

function elemShape(shape: Shape | undefined): Shape | undefined {
  return shape?.k === 'slice' ? shape.elem : undefined;
}
