/**
 * Field management (k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager): managedFields records
 * which manager owns which fields; server-side apply merges an applied configuration, removes
 * fields the applier stopped applying, and reports conflicts with other managers unless forced.
 *
 * Field sets use the FieldsV1 vocabulary: `f:<field>`, `k:{"name":"x"}` for items of keyed lists,
 * `v:<value>` for items of set lists, and `.` for an item or map that is itself owned.
 */
import { addedNodes } from './addednodes';
import { kindShape } from '../api/apigraph';
import { goShape } from '../api/goshape';
import { DEDUCED, fieldOf, isAtomic, itemKey } from './fieldtypes';
import type { FieldType } from './fieldtypes';
import { StatusError } from '../apimachinery/errors';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { KubeObject, ManagedFieldsEntry } from '../apimachinery/types';

type Path = string[];
type Obj = Record<string, unknown>;

const SEP = '\u0001';
/**
 * Fields the server owns; never part of a field set (the stripSet of the apiserver's
 * stripMetaManager: generateName is the writer's, and so is a deletion's timestamp, which only
 * the server ever changes).
 */
const SERVER_META = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
]);

/** A field path (`['f:spec', 'f:replicas']`) as a field-set entry. */
export function fieldSetEntry(path: readonly string[]): string {
  return path.join(SEP);
}

/**
 * The leaf paths of a value of type `t` under `entry` (a field-set entry: segments joined by
 * SEP, built as strings because every write of every object walks here).
 */
function collect(v: unknown, entry: string, t: FieldType, out: Set<string>): void {
  if (isAtomic(t)) {
    out.add(entry);
    return;
  }
  if (Array.isArray(v)) {
    if (t.k === 'list' && t.rel === 'set') {
      for (const x of v) out.add(`${entry}${SEP}v:${JSON.stringify(x)}`);
      return;
    }
    if (t.k === 'list' && t.rel === 'map') {
      const keys = v.map((x) => itemKey(t, x));
      if (keys.every((k) => k !== undefined)) {
        const atomicItems = isAtomic(t.elem);
        v.forEach((x, i) => {
          const item = `${entry}${SEP}k:${JSON.stringify(keys[i])}`;
          // An atomic item (an OwnerReference) is owned whole: its key alone, no fields.
          if (atomicItems) {
            out.add(item);
            return;
          }
          out.add(`${item}${SEP}.`);
          const o = x as Obj;
          for (const k in o) collect(o[k], `${item}${SEP}f:${k}`, fieldOf(t.elem, k), out);
        });
        return;
      }
    }
    out.add(entry);
    return;
  }
  if (isObject(v)) {
    let empty = true;
    for (const k in v) {
      empty = false;
      collect(v[k], `${entry}${SEP}f:${k}`, fieldOf(t, k), out);
    }
    if (!empty) return;
  }
  out.add(entry);
}

/**
 * Whether a top-level field is outside a write through `subresource` (as fieldSet leaves it out).
 * A status write owns the metadata it changes too: a Deployment's status strategy keeps the
 * annotations, and the deployment controller writes its revision annotation through /status, so
 * kube-controller-manager's status entry owns `f:metadata.f:annotations` (what the strategy puts
 * back, such as a Deployment's labels, is in the reset fields the caller ignores).
 */
function outsideWrite(field: string, subresource: string | undefined): boolean {
  if (field === 'apiVersion' || field === 'kind') return true;
  if (subresource === 'status') return field !== 'status' && field !== 'metadata';
  return field === 'status' && subresource !== undefined;
}

/**
 * The field set of an object of type `t`: every leaf (an atomic node is one) but the
 * server-owned metadata and type fields.
 */
export function fieldSet(o: Obj, subresource?: string, t: FieldType = DEDUCED): Set<string> {
  const out = new Set<string>();
  for (const k in o) {
    const v = o[k];
    if (outsideWrite(k, subresource)) continue;
    if (k === 'metadata' && isObject(v)) {
      const mt = fieldOf(t, 'metadata');
      for (const mk in v)
        if (!SERVER_META.has(mk)) collect(v[mk], `f:metadata${SEP}f:${mk}`, fieldOf(mt, mk), out);
      continue;
    }
    collect(v, `f:${k}`, fieldOf(t, k), out);
  }
  return out;
}

/**
 * Paths the kind's strategy resets on this write (resetfields.ts: a Deployment's status through
 * the main resource), as field names; structured-merge-diff's updater ignores them (its
 * IgnoreFilter), so no manager owns them by writing there.
 */
export type IgnoredFields = readonly (readonly string[])[];

function withoutIgnored(set: Set<string>, ignored: IgnoredFields): Set<string> {
  if (!ignored.length) return set;
  const prefixes = ignored.map((p) => p.map((f) => `f:${f}`).join(SEP));
  for (const e of set) if (prefixes.some((p) => e === p || e.startsWith(p + SEP))) set.delete(e);
  return set;
}

/**
 * Leaf paths whose values differ between two objects (`changed`: added or modified in `b`), and
 * whether a leaf of `a` is gone from `b` (then some manager may own a removed field).
 */
function changedFields(
  a: Obj,
  b: Obj,
  subresource: string | undefined,
  t: FieldType,
): { changed: Set<string>; removedAny: boolean } {
  const sa = fieldSet(a, subresource, t);
  const sb = fieldSet(b, subresource, t);
  const changed = new Set<string>();
  for (const p of sb)
    if (!sa.has(p) || !deepEqual(valueAt(a, p.split(SEP), t), valueAt(b, p.split(SEP), t)))
      changed.add(p);
  let removedAny = false;
  for (const p of sa)
    if (!sb.has(p)) {
      removedAny = true;
      break;
    }
  return { changed, removedAny };
}

/**
 * The entries without the fields the write removed: structured-merge-diff's updater takes a
 * Comparison's Removed set (every path of `old` that `obj` no longer has, the nodes' own `.`
 * among them) from every manager, the writer's own entry too; an entry left empty goes.
 */
function withoutRemoved(
  entries: ManagedFieldsEntry[],
  old: Obj,
  obj: Obj,
  subresource: string | undefined,
  ignored: IgnoredFields,
): ManagedFieldsEntry[] {
  const ignoredPrefixes = ignored.map((p) => p.map((f) => `f:${f}`).join(SEP));
  const gone = (e: string): boolean => {
    const top = e.slice(2, e.indexOf(SEP) < 0 ? undefined : e.indexOf(SEP));
    if (outsideWrite(top, subresource)) return false;
    if (ignoredPrefixes.some((p) => e === p || e.startsWith(p + SEP))) return false;
    const path = e.split(SEP);
    return valueAt(old, path) !== undefined && valueAt(obj, path) === undefined;
  };
  const out: ManagedFieldsEntry[] = [];
  for (const entry of entries) {
    const set = entrySet(entry);
    let changed = false;
    for (const e of set)
      if (gone(e)) {
        set.delete(e);
        changed = true;
      }
    if (!changed) out.push(entry);
    else if (set.size) out.push({ ...entry, fieldsV1: toFieldsV1(set) });
  }
  return out;
}

/**
 * The value at a field path; with the type, a keyed list's item that omits a key field matches
 * by the field's schema default, as its key says (`k:{"port":80,"protocol":"TCP"}`).
 */
export function valueAt(o: unknown, path: Path, type: FieldType = DEDUCED): unknown {
  let cur = o;
  let t = type;
  for (const seg of path) {
    if (seg === '.') return cur;
    if (seg === '') return cur;
    if (seg.startsWith('f:')) {
      if (!isObject(cur)) return undefined;
      cur = cur[seg.slice(2)];
      t = fieldOf(t, seg.slice(2));
    } else if (seg.startsWith('k:')) {
      if (!Array.isArray(cur)) return undefined;
      const k = JSON.parse(seg.slice(2)) as Obj;
      const defaults = t.k === 'list' ? t.keyDefaults?.() : undefined;
      cur = cur.find(
        (x) =>
          isObject(x) && Object.entries(k).every(([kk, vv]) => (x[kk] ?? defaults?.[kk]) === vv),
      );
      t = t.k === 'list' ? t.elem : DEDUCED;
    } else if (seg.startsWith('v:')) {
      if (!Array.isArray(cur)) return undefined;
      const v = JSON.parse(seg.slice(2));
      return cur.find((x) => deepEqual(x, v));
    }
  }
  return cur;
}

/** Removes the field or item at `path`; returns the path of a map it left empty, if any. */
function removeAt(o: Obj, path: Path): Path | undefined {
  if (!path.length) return undefined;
  const parentPath = path[path.length - 1] === '.' ? path.slice(0, -2) : path.slice(0, -1);
  const last = path[path.length - 1] === '.' ? path[path.length - 2] : path[path.length - 1];
  const parent = valueAt(o, parentPath);
  if (last.startsWith('f:') && isObject(parent)) {
    const had = last.slice(2) in parent;
    delete parent[last.slice(2)];
    if (had && !Object.keys(parent).length) return parentPath;
  } else if (last.startsWith('k:') && Array.isArray(parent)) {
    const k = JSON.parse(last.slice(2)) as Obj;
    const i = parent.findIndex(
      (x) => isObject(x) && Object.entries(k).every(([kk, vv]) => x[kk] === vv),
    );
    if (i >= 0) parent.splice(i, 1);
  } else if (last.startsWith('v:') && Array.isArray(parent)) {
    const v = JSON.parse(last.slice(2));
    const i = parent.findIndex((x) => deepEqual(x, v));
    if (i >= 0) parent.splice(i, 1);
  }
  return undefined;
}

/**
 * FieldsV1 tree of a set of paths, each node's children in sorted order. The paths are inserted as
 * they come and each node's keys sorted after: the same order as sorting the whole paths (SEP sorts
 * below every character), without comparing long strings.
 */
export function toFieldsV1(set: Set<string>): Obj {
  const root: Obj = {};
  for (const p of set) {
    let cur = root;
    for (let start = 0; start < p.length;) {
      let end = p.indexOf(SEP, start);
      if (end < 0) end = p.length;
      if (end > start) {
        const seg = p.slice(start, end);
        cur = (cur[seg] ??= {}) as Obj;
      }
      start = end + 1;
    }
  }
  return sortedTree(root);
}

function sortedTree(node: Obj): Obj {
  const keys = Object.keys(node);
  if (keys.length === 0) return node;
  if (keys.length > 1) keys.sort();
  const out: Obj = {};
  for (const k of keys) out[k] = sortedTree(node[k] as Obj);
  return out;
}

function fromFieldsV1(tree: unknown, prefix: Path = [], out = new Set<string>()): Set<string> {
  if (!isObject(tree)) return out;
  const keys = Object.keys(tree);
  if (!keys.length && prefix.length) out.add(prefix.join(SEP));
  for (const k of keys) {
    if (k === '.') out.add([...prefix, '.'].join(SEP));
    else fromFieldsV1(tree[k], [...prefix, k], out);
  }
  return out;
}

export function entrySet(e: ManagedFieldsEntry): Set<string> {
  return fromFieldsV1(e.fieldsV1 ?? {});
}

function sameEntry(
  e: ManagedFieldsEntry,
  manager: string,
  op: 'Apply' | 'Update',
  subresource?: string,
): boolean {
  return (
    e.manager === manager && e.operation === op && (e.subresource ?? '') === (subresource ?? '')
  );
}

/** Puts `fields` under (manager, op) and takes them from every other entry; empty entries go. */
function assign(
  entries: ManagedFieldsEntry[],
  manager: string,
  op: 'Apply' | 'Update',
  apiVersion: string,
  time: string,
  subresource: string | undefined,
  fields: Set<string>,
  replace: boolean,
): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  let mine: Set<string> = new Set();
  for (const e of entries) {
    if (sameEntry(e, manager, op, subresource)) {
      if (!replace) mine = entrySet(e);
      continue;
    }
    const s = entrySet(e);
    let changed = false;
    for (const f of fields) if (s.delete(f)) changed = true;
    if (!changed) out.push(e);
    else if (s.size) out.push({ ...e, fieldsV1: toFieldsV1(s) });
  }
  if (mine.size) for (const f of fields) mine.add(f);
  else mine = fields; // the manager's first entry: the write's fields are all of it
  if (mine.size) {
    out.push({
      manager,
      operation: op,
      apiVersion,
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(mine),
      ...(subresource ? { subresource } : {}),
    });
  }
  return sortEntries(out);
}

/**
 * sortEncodedManagedFields: the apiserver stores the entries ordered by operation (Apply before
 * Update), then time to the second, then manager, apiVersion and subresource — so two writers in
 * the same second are listed by name, not by who wrote first.
 */
export function sortEntries(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  if (entries.length < 2) return entries; // a create's one entry: nothing to order
  const seconds = (e: ManagedFieldsEntry) => (e.time ? Math.floor(Date.parse(e.time) / 1000) : 0);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort(
    (p, q) =>
      cmp(p.operation ?? '', q.operation ?? '') ||
      seconds(p) - seconds(q) ||
      cmp(p.manager ?? '', q.manager ?? '') ||
      cmp(p.apiVersion ?? '', q.apiVersion ?? '') ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
}

/** Records an Update (create, update, patch) by `manager` in obj.metadata.managedFields. */
export function recordManagedFields(
  obj: KubeObject,
  old: KubeObject | undefined,
  /**
   * The writer's field manager; undefined for an in-process writer that names none. A request
   * over HTTP always has one: its `fieldManager`, its user agent's first word, or "unknown".
   */
  manager: string | undefined,
  op: 'Update',
  apiVersion: string,
  time: string,
  subresource: string | undefined,
  /** The kind's schema (fieldtypes.ts); deduced when unknown. */
  type: FieldType = DEDUCED,
  ignored: IgnoredFields = [],
): void {
  if (manager === undefined) {
    if (!(old?.metadata.managedFields ?? obj.metadata.managedFields)?.length) {
      // In-process writers that name no manager and objects nobody manages: nothing to track.
      if (!old) delete obj.metadata.managedFields;
      return;
    }
    manager = 'unknown';
  }
  let entries = old ? (old.metadata.managedFields ?? []) : [];
  let changed: Set<string>;
  if (old) {
    const diff = changedFields(old as Obj, obj as Obj, subresource ?? '', type);
    changed = diff.changed;
    if (diff.removedAny && entries.length)
      entries = withoutRemoved(entries, old as Obj, obj as Obj, subresource ?? '', ignored);
  } else changed = fieldSet(obj as Obj, undefined, type);
  // The maps and structs the write adds are owned themselves too (their `.`).
  if (changed.size)
    addedNodes(obj, old, SEP, (field) => outsideWrite(field, subresource), changed, type);
  withoutIgnored(changed, ignored);
  if (!changed.size) {
    obj.metadata.managedFields = entries.length ? entries : undefined;
    if (!entries.length) delete obj.metadata.managedFields;
    return;
  }
  obj.metadata.managedFields = assign(
    entries,
    manager,
    op,
    apiVersion,
    time,
    subresource,
    changed,
    false,
  );
}

function renderPath(p: string): string {
  return p
    .split(SEP)
    .filter((s) => s && s !== '.')
    .map((s) => {
      if (s.startsWith('f:')) return `.${s.slice(2)}`;
      if (s.startsWith('k:')) {
        const k = JSON.parse(s.slice(2)) as Obj;
        return `[${Object.entries(k)
          .map(([kk, vv]) => `${kk}=${JSON.stringify(vv)}`)
          .join(',')}]`;
      }
      return `[=${s.slice(2)}]`;
    })
    .join('');
}

/**
 * Merges an applied configuration the way SSA does, by the schema: maps and structs field by
 * field, keyed lists by key, sets by value, atomic nodes replaced whole.
 */
export function mergeApplied(live: unknown, applied: unknown, t: FieldType): unknown {
  if (isAtomic(t)) return applied;
  if (isObject(applied)) {
    const out: Obj = isObject(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(applied)) out[k] = mergeApplied(out[k], v, fieldOf(t, k));
    return out;
  }
  if (Array.isArray(applied) && t.k === 'list') {
    if (t.rel === 'set') {
      const out = Array.isArray(live) ? [...live] : [];
      for (const x of applied) if (!out.some((y) => deepEqual(x, y))) out.push(x);
      return out;
    }
    if (t.rel === 'map' && Array.isArray(live)) {
      const out = [...live];
      for (const a of applied) {
        const key = itemKey(t, a);
        if (!key) continue;
        const i = out.findIndex((x) => deepEqual(itemKey(t, x), key));
        if (i >= 0) out[i] = mergeApplied(out[i], a, t.elem);
        else out.push(a);
      }
      return out;
    }
  }
  return applied;
}

/**
 * Server-side apply of `applied` onto `next` (a copy of the live object, or of the new object on
 * create), updating managedFields. Throws a 409 listing the conflicting fields unless forced.
 */
export function applyPatch(
  next: KubeObject,
  live: KubeObject | undefined,
  applied: KubeObject,
  manager: string,
  apiVersion: string,
  time: string,
  force: boolean,
  subresource: string | undefined,
  /** The kind's schema (fieldtypes.ts); deduced when unknown. */
  type: FieldType = DEDUCED,
  ignored: IgnoredFields = [],
): void {
  const entries = next.metadata.managedFields ?? [];
  const appliedSet = withoutIgnored(
    fieldSet(applied as Obj, subresource ?? (live ? '' : undefined), type),
    ignored,
  );
  if (live) {
    // Managers are identified by name, operation and subresource, as structured-merge-diff does:
    // "kubectl" updating through /scale is another manager than "kubectl" applying.
    const conflicts = new Map<string, { manager: string; apiVersion: string; paths: string[] }>();
    for (const e of entries) {
      if (sameEntry(e, manager, 'Apply', subresource)) continue;
      // printManager: an Update manager is named with its version, an applier without (its
      // identifier leaves the version out, so that it stays one manager whatever it applies).
      const who =
        `"${e.manager ?? ''}"${e.subresource ? ` with subresource "${e.subresource}"` : ''}` +
        (e.operation === 'Update' ? ` using ${e.apiVersion ?? apiVersion}` : '');
      for (const p of entrySet(e)) {
        if (!appliedSet.has(p)) continue;
        const segs = p.split(SEP);
        const [was, now] = [valueAt(live, segs, type), valueAt(applied, segs, type)];
        // A struct's or item's own node (`.`) is compared as structured-merge-diff compares a
        // non-atomic node: only its being there; its fields conflict one by one.
        if (
          segs[segs.length - 1] === '.'
            ? (was === undefined) === (now === undefined)
            : deepEqual(was, now)
        )
          continue;
        const c = conflicts.get(who) ?? {
          manager: who,
          apiVersion: e.apiVersion ?? apiVersion,
          paths: [],
        };
        c.paths.push(renderPath(p));
        conflicts.set(who, c);
      }
    }
    if (conflicts.size && !force) throw conflictError(next, [...conflicts.values()]);
    // Fields this manager applied before and no longer applies are removed, unless someone else owns them.
    const prev = entries.find((e) => sameEntry(e, manager, 'Apply', subresource));
    const emptied: Path[] = [];
    if (prev) {
      const others = new Set<string>();
      for (const e of entries) if (e !== prev) for (const p of entrySet(e)) others.add(p);
      for (const p of entrySet(prev))
        if (!appliedSet.has(p) && !others.has(p)) {
          const left = removeAt(next as Obj, p.split(SEP));
          // ObjectMeta's maps are omitempty maps: empty and null decode alike.
          if (left?.length && left[0] !== 'f:metadata') emptied.push(left);
        }
    }
    const merged = mergeApplied(next, stripMeta(applied, subresource), type) as KubeObject;
    for (const k of Object.keys(next)) delete (next as Obj)[k];
    Object.assign(next, merged);
    // structured-merge-diff (v6.3.3) prunes after merging, and a map it empties by removing the
    // fields a manager no longer applies becomes null — even where the configuration applies it
    // empty — which a built-in kind's Go type then decodes (a nil pointer to a struct, a policy's
    // status.typeChecking, is absent). Custom resources keep the empty map here.
    const builtin = emptied.length > 0 && !!kindShape(next.apiVersion, next.kind);
    let nulled = false;
    for (const path of builtin ? emptied : []) {
      const last = path[path.length - 1]!;
      const parent = valueAt(next, path.slice(0, -1));
      const v = valueAt(next, path);
      if (last.startsWith('f:') && isObject(parent) && isObject(v) && !Object.keys(v).length) {
        parent[last.slice(2)] = null;
        nulled = true;
      }
    }
    if (nulled) goShape(next as Obj, next.apiVersion, next.kind);
  }
  next.metadata.managedFields = assign(
    entries,
    manager,
    'Apply',
    apiVersion,
    time,
    subresource,
    appliedSet,
    true,
  );
}

/** `set` less the entries at or under the `ignored` paths (structuredmerge's IgnoreFilter). */

function stripMeta(applied: KubeObject, subresource?: string): Obj {
  const c: Obj = { ...applied };
  delete c.apiVersion;
  delete c.kind;
  if (subresource === 'status') {
    return { status: c.status };
  }
  if (isObject(c.metadata)) {
    const md: Obj = {};
    for (const [k, v] of Object.entries(c.metadata)) if (!SERVER_META.has(k)) md[k] = v;
    c.metadata = md;
  }
  return c;
}

function conflictError(
  obj: KubeObject,
  conflicts: Array<{ manager: string; apiVersion: string; paths: string[] }>,
): StatusError {
  const n = conflicts.reduce((s, c) => s + c.paths.length, 0);
  let msg: string;
  if (n === 1) {
    const c = conflicts[0];
    msg = `Apply failed with 1 conflict: conflict with ${c.manager}: ${c.paths[0]}`;
  } else {
    msg =
      `Apply failed with ${n} conflicts: ` +
      conflicts
        .map((c) => `conflicts with ${c.manager}:\n${c.paths.map((p) => `- ${p}`).join('\n')}`)
        .join('\n');
  }
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: msg,
    reason: 'Conflict',
    details: {
      causes: conflicts.flatMap((c) =>
        c.paths.map((p) => ({
          reason: 'FieldManagerConflict',
          message: `conflict with ${c.manager}`,
          field: p,
        })),
      ),
    },
    code: 409,
  });
  void obj;
}
