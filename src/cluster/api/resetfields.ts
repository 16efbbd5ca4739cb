/**
 * What each built-in kind's strategies reset on an update: the fields kube-apiserver puts back
 * from the stored object, so that an update through the main resource cannot change the status
 * and one through /status cannot change the spec (nor, for some kinds, labels, ownerReferences or
 * the whole metadata) — everything else the writer sent is kept. Generated from the strategies'
 * own GetResetFields declarations of the pinned release (scripts/apigen-resetfields.mjs).
 *
 * Custom resources have no declaration here: their status strategy keeps only the status (and the
 * managed fields) of a status write, which the cluster does itself.
 */
import generated from '../../../generated/resetfields.json';

type FieldPath = readonly string[];
/** "group/Kind" → subresource ("" for the main resource) → apiVersion → paths. */
type ResetFieldsTable = Record<string, Record<string, Record<string, FieldPath[]>>>;

const TABLE = generated.resetFields as ResetFieldsTable;

/**
 * The paths an update of `group/kind` through `subresource` resets, as the strategy declares them
 * for `apiVersion` (or for any version of the group, which declare the same paths); undefined when
 * the kind declares none for that subresource.
 */
export function resetPaths(
  group: string,
  kind: string,
  subresource: string,
  apiVersion: string,
): readonly FieldPath[] | undefined {
  const byVersion = TABLE[`${group}/${kind}`]?.[subresource];
  if (!byVersion) return undefined;
  return byVersion[apiVersion] ?? Object.values(byVersion)[0];
}

/** Puts `old`'s value (or its absence) back at each path of `next`. */
export function resetFields(
  next: Record<string, unknown>,
  old: Record<string, unknown>,
  paths: readonly FieldPath[],
): void {
  for (const path of paths) {
    if (path.length === 1 && path[0] === 'metadata') {
      // A strategy that puts the whole ObjectMeta back keeps the write's managedFields ("must be
      // preserved since it's been modified to track changed fields in the status update").
      const managed = asObject(next.metadata)?.managedFields;
      resetField(next, old, path);
      const md = asObject(next.metadata);
      if (md && managed !== undefined) md.managedFields = managed;
      else if (md) delete md.managedFields;
      continue;
    }
    resetField(next, old, path);
  }
}

function resetField(next: Record<string, unknown>, old: Record<string, unknown>, path: FieldPath) {
  let to = next;
  let from: Record<string, unknown> | undefined = old;
  for (const name of path.slice(0, -1)) {
    from = asObject(from?.[name]);
    let child = asObject(to[name]);
    if (!child) {
      if (!from) return; // absent on both sides from here down: nothing to put back
      to[name] = child = {};
    }
    to = child;
  }
  const last = path[path.length - 1]!;
  if (from && last in from) to[last] = structuredClone(from[last]);
  else delete to[last];
}

function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}
