/**
 * What a client write is meant to change, computed before it is sent (the trace's `diff` phase):
 * the caller's object against the server's, the status alone for a status write, the patch applied
 * to the server's object for a merge-style patch, the operations themselves for a JSON patch.
 * Pure: it reads its inputs and copies nothing it is given (detachValues copies, for a failed write).
 */
import type { KubeObject, PatchType } from '../cluster/apimachinery/types';
import { clone } from '../cluster/apimachinery/clone';
import type { ObjectLike } from './api';
import { diffObjects, IGNORED_PATHS_AND_STATUS, type DiffEntry } from './trace';

export type WriteVerb = 'create' | 'update' | 'patch' | 'delete';

export interface IntendedWrite {
  verb: WriteVerb;
  subresource: '' | 'status';
  /** The object as the server has it now; undefined for a create or when it is missing. */
  before: KubeObject | undefined;
  /** The object the caller passed (for a patch or a delete, only its type and key matter). */
  obj: ObjectLike;
  patch?: unknown;
  patchType?: PatchType;
}

export function intendedDiff(w: IntendedWrite): DiffEntry[] {
  const { before, subresource } = w;
  switch (w.verb) {
    case 'delete':
      return before ? [{ path: '.', op: 'remove', before: undefined }] : [];
    case 'patch':
      return intendedPatch(before, subresource, w.patch, w.patchType ?? 'merge');
    default:
      if (subresource === 'status') return statusDiff(before, (w.obj as KubeObject).status);
      return mainResourceDiff(before, w.obj);
  }
}

function intendedPatch(
  before: KubeObject | undefined,
  subresource: '' | 'status',
  patch: unknown,
  patchType: PatchType,
): DiffEntry[] {
  if (patchType === 'json') {
    return ((patch as Array<{ op: string; path: string; value?: unknown }>) ?? []).map((p) => ({
      path: p.path,
      op: p.op === 'remove' ? 'remove' : p.op === 'add' ? 'add' : 'replace',
      after: p.value,
    }));
  }
  // Strategic merge and apply are shown as a merge patch: close enough to preview, and the
  // write's own phase records what the server really did.
  const patched = applyMergePatch(before, patch) as KubeObject | undefined;
  if (subresource === 'status') return statusDiff(before, patched?.status);
  return mainResourceDiff(before, patched);
}

/** What a status write changes: the status alone. */
function statusDiff(before: KubeObject | undefined, status: unknown): DiffEntry[] {
  return diffObjects(before?.status, status, undefined, '.status');
}

/** What a write to the main resource changes: everything but the status. */
function mainResourceDiff(before: KubeObject | undefined, after: unknown): DiffEntry[] {
  // Two objects are walked with the status skipped (no copies); a missing side is the whole
  // object added or removed, shown without its status.
  if (before && after) return diffObjects(before, after, IGNORED_PATHS_AND_STATUS);
  return diffObjects(withoutStatus(before), withoutStatus(after as ObjectLike | undefined));
}

function withoutStatus(o: KubeObject | ObjectLike | undefined): unknown {
  if (!o) return undefined;
  const { status: _s, ...rest } = o as KubeObject;
  return rest;
}

/**
 * Copies, in place, the values of an intended diff that are objects: they are the caller's (its
 * object's members, its patch's values). After a failed write the caller still holds them — Go's
 * client leaves the object as it was — and may change them for its next try, which would rewrite
 * what this diff says was meant. A successful write is not copied for: the caller's object then
 * holds a copy of the answer instead of those members (client.ts's assignInPlace), so only a member
 * the caller kept a reference of its own to can still change them, and a copy of every object
 * written would cost a bulk run a parse per write.
 */
export function detachValues(diff: DiffEntry[]): void {
  for (const e of diff)
    if (typeof e.after === 'object' && e.after !== null) e.after = clone(e.after);
}

/** RFC 7386 JSON merge patch, to show what a patch will change before it is sent. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}
