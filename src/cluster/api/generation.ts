/**
 * Which built-in kinds have a metadata.generation: those whose strategy's PrepareForCreate sets it
 * to 1 (Pods, Deployments, NetworkPolicies, PriorityClasses…; not ConfigMaps or Namespaces).
 * Generated from the strategies of the pinned release (scripts/apigen-generation.mjs). Custom
 * resources always have one, as the CR strategy sets it.
 */
import generated from '../../../generated/generation.json';

const KINDS = new Set<string>(generated.kinds);

/** Whether objects of the built-in `group`/`kind` carry a generation. */
export function hasGeneration(group: string, kind: string): boolean {
  return KINDS.has(`${group}/${kind}`);
}
