/**
 * Where a Patch's base is copied from the object. Changes made to the object before that copy are
 * in the base and so not in the patch; changes made after it are sent. Shared by spec-write and
 * the summaries (which helpers send their callers' earlier changes).
 */
import type { ClientCall } from './reconcilers';
import { callArgs, callee, descendants, field, named, unparen, type Node } from './syntax';

/** Patch constructors whose first argument is the base the patch is computed against. */
const MERGE_FROM = new Set(['MergeFrom', 'MergeFromWithOptions', 'StrategicMergeFrom']);

/** The last definition of `name` before `at` in `body`, with its value. */
function lastDefinition(body: Node, name: string, at: Node): [Node, Node | null] | null {
  let found: [Node, Node | null] | null = null;
  for (const d of descendants(body, ['short_var_declaration', 'assignment_statement'])) {
    if (d.startIndex >= at.startIndex) break;
    const left = named(field(d, 'left'));
    const i = left.findIndex((l) => l.text === name);
    if (i >= 0) found = [d, named(field(d, 'right'))[i] ?? null];
  }
  return found;
}

/**
 * Where the base of `client.MergeFrom(base)` was copied from the object, when that is in this
 * function (`body`): `base := obj.DeepCopy()`, the inline `MergeFrom(obj.DeepCopy())`, or
 * `patch := client.MergeFrom(obj.DeepCopy())` passed as the patch. Null when the base comes from
 * elsewhere (a parameter); 'none' when the patch is not computed against a base.
 */
export function patchBase(body: Node, patch: Node, opt: Node | undefined): Node | null | 'none' {
  let c = unparen(opt ?? null);
  let at = patch;
  if (c?.type === 'identifier') {
    // `patch := client.MergeFrom(...)` earlier: the base is taken where that runs.
    const def = lastDefinition(body, c.text, patch);
    if (!def) return 'none';
    [at, c] = [def[0], unparen(def[1])];
  }
  if (c?.type !== 'call_expression' || !MERGE_FROM.has(callee(c)?.name ?? '')) return 'none';
  let base = unparen(callArgs(c)[0] ?? null);
  // `MergeFrom(obj.DeepCopyObject().(client.Object))`: the copy, asserted back to an object.
  if (base?.type === 'type_assertion_expression') base = unparen(field(base, 'operand'));
  if (!base) return 'none';
  if (base.type === 'call_expression' && /DeepCopy/.test(callee(base)?.name ?? '')) return at;
  if (base.type !== 'identifier') return null;
  const def = lastDefinition(body, base.text, at);
  return def && def[1] && /DeepCopy/.test(def[1].text) ? def[0] : null;
}

/**
 * Does this write (`Update`/`Patch` of the object, not status) send what was changed in the
 * object before the function ran? An Update does; a Patch against a copy the function takes
 * itself does not (those changes are in its base).
 */
export function sendsEarlierChanges(body: Node, cc: ClientCall): boolean {
  if (cc.status || (cc.method !== 'Update' && cc.method !== 'Patch')) return false;
  const base = cc.method === 'Patch' ? patchBase(body, cc.call, cc.args[2]) : 'none';
  return base === null || base === 'none';
}
