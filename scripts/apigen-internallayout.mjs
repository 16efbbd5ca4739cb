// Generates generated/internallayout.json: the internal Go types reachable from core.PodSpec as
// encoding/json writes them (field order, Go names, embedded structs flattened), each field's
// source in the v1 object and the conversion's moves (a PodSpec's host namespaces go into its
// SecurityContext), read from the pinned release by tools/defaulting's `layout`. kube-apiserver
// prints an internal PodSpec in two messages: a Job's immutable template (json.Marshal) and a
// Pod's forbidden update (a diff of json.MarshalIndent).
//
// Run through scripts/generate.mjs.
import { runDefaulting } from './apigen-defaults.mjs';

export function generate(release) {
  const structs = {};
  for (const s of runDefaulting(release, 'layout'))
    structs[s.n] = { fields: s.f, ...(s.m ? { moves: s.m } : {}) };
  return { release, root: 'core.PodSpec', structs };
}
