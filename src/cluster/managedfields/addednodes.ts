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
import { isObject, mergeKeyFor } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

type Obj = Record<string, unknown>;

/** What a Go zero value holds: its non-pointer struct fields, each with its own zero value. */
const zeroTrees = new WeakMap<StructInfo, Obj>();
function zeroTree(t: StructInfo): Obj {
  let tree = zeroTrees.get(t);
  if (tree) return tree;
  tree = {};
  zeroTrees.set(t, tree);
  for (const [name, f] of jsonFields(t)) {
    if (f.shape.k === 'struct') tree[name] = zeroTree(f.shape.t);
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
 */
export function addedNodes(
  next: KubeObject,
  old: KubeObject | undefined,
  sep: string,
  skip: (field: string) => boolean,
  out: Set<string>,
): void {
  const t = kindStruct(next.apiVersion, next.kind);
  const baseline: Obj = t ? zeroTree(t) : { metadata: {} };
  const walk = (
    v: Obj,
    before: unknown,
    base: unknown,
    type: StructInfo | undefined,
    path: string[],
  ) => {
    for (const [k, child] of Object.entries(v)) {
      if (path.length === 0 && skip(k)) continue;
      const p = [...path, `f:${k}`];
      const was = isObject(before) ? before[k] : undefined;
      const zero = isObject(base) ? base[k] : undefined;
      const childType = structOf(fieldShape(type, k));
      if (isObject(child)) {
        if (Object.keys(child).length === 0) continue; // an empty map is a leaf of its own
        if (was === undefined && zero === undefined) out.add([...p, '.'].join(sep));
        walk(child, was, zero, childType, p);
      } else if (Array.isArray(child)) {
        // Items of a keyed list are paired by key (their own `.` comes with their key, as
        // fieldSet writes it); the nodes inside an item new to the list are all added.
        const key = mergeKeyFor(k, child);
        if (!key || !child.every((x) => isObject(x) && x[key] !== undefined)) continue;
        const olds = Array.isArray(was) ? was : [];
        const itemType = structOf(elemShape(fieldShape(type, k)));
        for (const item of child as Obj[]) {
          const before = olds.find((o) => isObject(o) && o[key] === item[key]);
          walk(item, before, undefined, itemType, [
            ...p,
            `k:${JSON.stringify({ [key]: item[key] })}`,
          ]);
        }
      }
    }
  };
  walk(next as unknown as Obj, old, baseline, t, []);
}

function elemShape(shape: Shape | undefined): Shape | undefined {
  return shape?.k === 'slice' ? shape.elem : undefined;
}
