// Generates generated/bookmarks.json: for every served kind, the object a watch BOOKMARK event
// carries, read from the pinned release by tools/defaulting's `bookmarks` — an empty object of the
// kind's internal type converted to its version, as kube-apiserver's watch cache sends it. The
// conversion's own defaults are in it (a Deployment's `replicas: 0`, a DaemonSet's
// `deprecated.daemonset.template.generation: "0"`), which the external type's zero value lacks.
//
// Run through scripts/generate.mjs.
import { runDefaulting, servedKinds } from './apigen-defaults.mjs';

export function generate(release) {
  const served = servedKinds();
  const kinds = {};
  for (const k of runDefaulting(release, 'bookmarks')) {
    if (!served.has(`${k.g}/${k.v}/${k.k}`)) continue;
    // Of the metadata only what the conversion wrote (annotations): the resourceVersion and the
    // initial-events-end annotation are the watch cache's own.
    const annotations = k.o.metadata?.annotations;
    delete k.o.metadata;
    if (annotations) k.o.metadata = { annotations };
    kinds[`${k.g}/${k.v}/${k.k}`] = k.o;
  }
  return { release, kinds };
}
