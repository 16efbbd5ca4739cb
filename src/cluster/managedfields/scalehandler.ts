/**
 * managedFields across the scale subresource (apimachinery's managedfields.ScaleHandler): a Scale
 * shows who owns the parent's replicas as owners of its own `.spec.replicas` (ToSubresource), so a
 * server-side apply to /scale conflicts with them in the Scale's version; and a write through /scale
 * moves the ownership of the parent's replicas field to the Scale's writers (ToParent).
 */
import { entrySet, fieldSetEntry, sortEntries, toFieldsV1 } from './fieldmanager';
import type { ManagedFieldsEntry } from '../apimachinery/types';

export const SCALE_API_VERSION = 'autoscaling/v1';
const REPLICAS_IN_SCALE = fieldSetEntry(['f:spec', 'f:replicas']);

/** A jsonpath such as `.spec.replicas` as a field set's path. */
export function replicasField(jsonPath: string): string {
  return fieldSetEntry(
    jsonPath
      .split('.')
      .filter(Boolean)
      .map((name) => `f:${name}`),
  );
}

/** The parent's entries that own its replicas, as the Scale's owners of `.spec.replicas`. */
export function scaleEntries(
  parent: readonly ManagedFieldsEntry[],
  replicas: string,
): ManagedFieldsEntry[] {
  return parent
    .filter((e) => entrySet(e).has(replicas))
    .map((e) => ({
      ...e,
      apiVersion: SCALE_API_VERSION,
      fieldsV1: toFieldsV1(new Set([REPLICAS_IN_SCALE])),
    }));
}

/** A manager as structured-merge-diff tells them apart: name, operation, subresource. */
function managerOf(e: ManagedFieldsEntry): string {
  return JSON.stringify([e.manager ?? '', e.operation ?? '', e.subresource ?? '']);
}

/**
 * The parent's entries after a write through /scale whose Scale ended with `scale`'s entries: a
 * parent owner of the replicas who is no longer among the Scale's loses the field (and its entry,
 * if nothing else is left); a Scale owner new to the parent gets an entry owning the replicas in
 * the parent's version — without a time, as upstream (it takes the time of the parent's entry).
 */
export function parentEntries(
  parent: readonly ManagedFieldsEntry[],
  scale: readonly ManagedFieldsEntry[],
  replicas: string,
  parentApiVersion: string,
): ManagedFieldsEntry[] {
  const scaleOwners = new Map(scale.map((e) => [managerOf(e), e]));
  const out: ManagedFieldsEntry[] = [];
  for (const e of parent) {
    const fields = entrySet(e);
    if (!fields.has(replicas)) out.push(e);
    else if (scaleOwners.delete(managerOf(e))) out.push(e);
    else {
      fields.delete(replicas);
      if (fields.size) out.push({ ...e, fieldsV1: toFieldsV1(fields) });
    }
  }
  for (const e of scaleOwners.values()) {
    if (!entrySet(e).has(REPLICAS_IN_SCALE)) continue;
    const { time: _time, ...entry } = e;
    out.push({ ...entry, apiVersion: parentApiVersion, fieldsV1: toFieldsV1(new Set([replicas])) });
  }
  // Encoded as every managedFields is (sortEncodedManagedFields): an entry without a time first.
  return sortEntries(out);
}
