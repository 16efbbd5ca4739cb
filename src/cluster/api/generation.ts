/**
 * Which built-in kinds have a metadata.generation: those whose strategy's PrepareForCreate sets it
 * to 1 (Pods, Deployments, NetworkPolicies, PriorityClasses…; not ConfigMaps or Namespaces), and
 * what their updates bump it on. Generated from the strategies of the pinned release
 * (scripts/apigen-generation.mjs). Custom resources always have one, bumped on any change but
 * metadata, as the CR strategy does.
 */
import generated from '../../../generated/generation.json';

const KINDS = new Set<string>(generated.kinds);
const NO_UPDATE_BUMP = new Set<string>(generated.noUpdateBump);
const ANNOTATIONS_BUMP = new Set<string>(generated.annotationsBump);
const LABELS_BUMP = new Set<string>(generated.labelsBump);

/** Whether objects of the built-in `group`/`kind` carry a generation. */
export function hasGeneration(group: string, kind: string): boolean {
  return KINDS.has(`${group}/${kind}`);
}

/**
 * What an update of the built-in `group`/`kind` bumps its generation on: a change of anything
 * but metadata ('spec'), that or of the annotations (a Deployment's) or of the labels (an
 * EndpointSlice's), or nothing (a PriorityClass's strategy never bumps it).
 */
export function generationBumpsOn(
  group: string,
  kind: string,
): 'spec' | 'annotations' | 'labels' | 'never' {
  const key = `${group}/${kind}`;
  if (NO_UPDATE_BUMP.has(key)) return 'never';
  if (ANNOTATIONS_BUMP.has(key)) return 'annotations';
  return LABELS_BUMP.has(key) ? 'labels' : 'spec';
}
