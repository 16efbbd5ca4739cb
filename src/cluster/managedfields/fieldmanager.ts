/**
 * Field management (k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager): managedFields records
 * which manager owns which fields; server-side apply merges an applied configuration, removes
 * fields the applier stopped applying, and reports conflicts with other managers unless forced.
 *
 * Field sets use the FieldsV1 vocabulary: `f:<field>`, `k:{"name":"x"}` for items of keyed lists,
 * `v:<value>` for items of set lists, and `.` for an item or map that is itself owned.
 */
import { addedNodes } from './addednodes';
import { StatusError } from '../apimachinery/errors';
import { deepEqual, isObject, mergeKeyFor } from '../apimachinery/patch';
import type { KubeObject, ManagedFieldsEntry } from '../apimachinery/types';

type Path = string[];
type Obj = Record<string, unknown>;

const SEP = '\u0001';
const SET_LISTS = new Set(['finalizers']);
/** Fields the server owns; never part of a field set. */
const SERVER_META = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
  'generateName',
]);

/** A field path (`['f:spec', 'f:replicas']`) as a field-set entry. */
export function fieldSetEntry(path: readonly string[]): string {
  return path.join(SEP);
}

/** The leaf paths of a value, as field-set entries. */
function collect(v: unknown, path: Path, field: string, out: Set<string>): void {
  if (Array.isArray(v)) {
    if (SET_LISTS.has(field)) {
      for (const x of v) out.add([...path, `v:${JSON.stringify(x)}`].join(SEP));
      return;
    }
    const key = mergeKeyFor(field, v);
    if (key && v.every((x) => isObject(x) && x[key] !== undefined)) {
      for (const x of v as Obj[]) {
        const p = [...path, `k:${JSON.stringify({ [key]: x[key] })}`];
        out.add([...p, '.'].join(SEP));
        for (const [k, y] of Object.entries(x)) collect(y, [...p, `f:${k}`], k, out);
      }
      return;
    }
    out.add(path.join(SEP));
    return;
  }
  if (isObject(v) && Object.keys(v).length) {
    for (const [k, y] of Object.entries(v)) collect(y, [...path, `f:${k}`], k, out);
    return;
  }
  out.add(path.join(SEP));
}

/** Whether a top-level field is outside a write through `subresource` (as fieldSet leaves it out). */
function outsideWrite(field: string, subresource: string | undefined): boolean {
  if (field === 'apiVersion' || field === 'kind') return true;
  if (subresource === 'status') return field !== 'status';
  return field === 'status' && subresource !== undefined;
}

/** The field set of an object: every leaf but the server-owned metadata and type fields. */
export function fieldSet(o: Obj, subresource?: string): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(o)) {
    if (outsideWrite(k, subresource)) continue;
    if (k === 'metadata' && isObject(v)) {
      for (const [mk, mv] of Object.entries(v))
        if (!SERVER_META.has(mk)) collect(mv, ['f:metadata', `f:${mk}`], mk, out);
      continue;
    }
    collect(v, [`f:${k}`], k, out);
  }
  return out;
}

/** Leaf paths whose values differ between two objects. */
function changedFields(a: Obj, b: Obj, subresource?: string): Set<string> {
  const sa = fieldSet(a, subresource);
  const sb = fieldSet(b, subresource);
  const out = new Set<string>();
  for (const p of sb)
    if (!sa.has(p) || !deepEqual(valueAt(a, p.split(SEP)), valueAt(b, p.split(SEP)))) out.add(p);
  return out;
}

export function valueAt(o: unknown, path: Path): unknown {
  let cur = o;
  for (const seg of path) {
    if (seg === '.') return cur;
    if (seg === '') return cur;
    if (seg.startsWith('f:')) {
      if (!isObject(cur)) return undefined;
      cur = cur[seg.slice(2)];
    } else if (seg.startsWith('k:')) {
      if (!Array.isArray(cur)) return undefined;
      const k = JSON.parse(seg.slice(2)) as Obj;
      cur = cur.find((x) => isObject(x) && Object.entries(k).every(([kk, vv]) => x[kk] === vv));
    } else if (seg.startsWith('v:')) {
      if (!Array.isArray(cur)) return undefined;
      const v = JSON.parse(seg.slice(2));
      return cur.find((x) => deepEqual(x, v));
    }
  }
  return cur;
}

function removeAt(o: Obj, path: Path): void {
  if (!path.length) return;
  const parentPath = path[path.length - 1] === '.' ? path.slice(0, -2) : path.slice(0, -1);
  const last = path[path.length - 1] === '.' ? path[path.length - 2] : path[path.length - 1];
  const parent = valueAt(o, parentPath);
  if (last.startsWith('f:') && isObject(parent)) delete parent[last.slice(2)];
  else if (last.startsWith('k:') && Array.isArray(parent)) {
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
}

/** FieldsV1 tree of a set of paths. */
export function toFieldsV1(set: Set<string>): Obj {
  const root: Obj = {};
  for (const p of [...set].sort()) {
    let cur = root;
    for (const seg of p.split(SEP)) {
      if (!seg) continue;
      if (!isObject(cur[seg])) cur[seg] = {};
      cur = cur[seg] as Obj;
    }
  }
  return root;
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
  for (const f of fields) mine.add(f);
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
  /**
   * The fields the write's strategy resets (its GetResetFields), which the field manager's
   * updater ignores (structuredmerge's IgnoreFilter): a write never owns what it cannot change.
   */
  ignored: readonly (readonly string[])[] = [],
): void {
  if (manager === undefined) {
    if (!(old?.metadata.managedFields ?? obj.metadata.managedFields)?.length) {
      // In-process writers that name no manager and objects nobody manages: nothing to track.
      if (!old) delete obj.metadata.managedFields;
      return;
    }
    manager = 'unknown';
  }
  const entries = old ? (old.metadata.managedFields ?? []) : [];
  const changed = old
    ? changedFields(old as Obj, obj as Obj, subresource ?? '')
    : fieldSet(obj as Obj);
  // The maps and structs the write adds are owned themselves too (their `.`).
  if (changed.size) addedNodes(obj, old, SEP, (field) => outsideWrite(field, subresource), changed);
  const owned = withoutIgnored(changed, ignored);
  if (!owned.size) {
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
    owned,
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

/** Merges an applied configuration the way SSA does: maps recursively, keyed lists by key, other lists atomically. */
function mergeApplied(live: unknown, applied: unknown, field: string): unknown {
  if (isObject(applied)) {
    const out: Obj = isObject(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(applied)) out[k] = mergeApplied(out[k], v, k);
    return out;
  }
  if (Array.isArray(applied)) {
    if (SET_LISTS.has(field)) {
      const out = Array.isArray(live) ? [...live] : [];
      for (const x of applied) if (!out.some((y) => deepEqual(x, y))) out.push(x);
      return out;
    }
    const key = mergeKeyFor(field, applied);
    if (key && Array.isArray(live)) {
      const out = [...live];
      for (const a of applied) {
        if (!isObject(a)) continue;
        const i = out.findIndex((x) => isObject(x) && x[key] === a[key]);
        if (i >= 0) out[i] = mergeApplied(out[i], a, '');
        else out.push(a);
      }
      return out;
    }
    return applied;
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
  /** The fields the strategy resets: applied, but owned by no one (as in recordManagedFields). */
  ignored: readonly (readonly string[])[] = [],
): void {
  const entries = next.metadata.managedFields ?? [];
  const appliedSet = fieldSet(applied as Obj, subresource ?? (live ? '' : undefined));
  const owned = withoutIgnored(appliedSet, ignored);
  if (live) {
    // Managers are identified by name, operation and subresource, as structured-merge-diff does:
    // "kubectl" updating through /scale is another manager than "kubectl" applying.
    const conflicts = new Map<string, { manager: string; apiVersion: string; paths: string[] }>();
    for (const e of entries) {
      if (sameEntry(e, manager, 'Apply', subresource)) continue;
      const who = `"${e.manager ?? ''}"${e.subresource ? ` with subresource "${e.subresource}"` : ''}`;
      for (const p of entrySet(e)) {
        if (!owned.has(p)) continue;
        const segs = p.split(SEP);
        if (deepEqual(valueAt(live, segs), valueAt(applied, segs))) continue;
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
    if (prev) {
      const others = new Set<string>();
      for (const e of entries) if (e !== prev) for (const p of entrySet(e)) others.add(p);
      for (const p of entrySet(prev))
        if (!appliedSet.has(p) && !others.has(p)) removeAt(next as Obj, p.split(SEP));
    }
    const merged = mergeApplied(next, stripMeta(applied, subresource), '') as KubeObject;
    for (const k of Object.keys(next)) delete (next as Obj)[k];
    Object.assign(next, merged);
  }
  next.metadata.managedFields = assign(
    entries,
    manager,
    'Apply',
    apiVersion,
    time,
    subresource,
    owned,
    true,
  );
}

/** `set` less the entries at or under the `ignored` paths (structuredmerge's IgnoreFilter). */
function withoutIgnored(set: Set<string>, ignored: readonly (readonly string[])[]): Set<string> {
  if (!ignored.length) return set;
  const prefixes = ignored.map((p) => p.map((f) => `f:${f}`).join(SEP));
  return new Set([...set].filter((e) => !prefixes.some((p) => e === p || e.startsWith(p + SEP))));
}

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
    msg = `Apply failed with 1 conflict: conflict with ${c.manager} using ${c.apiVersion}: ${c.paths[0]}`;
  } else {
    msg =
      `Apply failed with ${n} conflicts: ` +
      conflicts
        .map(
          (c) =>
            `conflicts with ${c.manager} using ${c.apiVersion}:\n${c.paths.map((p) => `- ${p}`).join('\n')}`,
        )
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
          message: `conflict with ${c.manager} using ${c.apiVersion}`,
          field: p,
        })),
      ),
    },
    code: 409,
  });
  void obj;
}
