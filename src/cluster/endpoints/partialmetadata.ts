/**
 * PartialObjectMetadata as kube-apiserver makes it, for metadata-only clients and a Table's rows
 * (asPartialObjectMetadata, asTable with includeObject=Metadata): from the handler's result, the
 * internal object, not the object at the request's version. So the annotations that conversion
 * from a version moves into the internal type's fields are not there: a DaemonSet's
 * `deprecated.daemonset.template.generation` (Spec.TemplateGeneration), a Deployment's
 * `deprecated.deployment.rollback.to` (Spec.RollbackTo), as apps/v1's conversion.go moves them.
 */
import type { KubeObject, ObjectMeta } from '../apimachinery/types';

/** `group/Kind` → the annotations its conversion to the internal type moves, when their value parses. */
const MOVED_BY_CONVERSION: Record<string, readonly string[]> = {
  'apps/DaemonSet': ['deprecated.daemonset.template.generation'],
  'apps/Deployment': ['deprecated.deployment.rollback.to'],
};

/** The value strconv.ParseInt(v, 10, 64) accepts. */
function isInt64(v: string): boolean {
  return /^[+-]?\d+$/.test(v) && BigInt(v) >= -(2n ** 63n) && BigInt(v) < 2n ** 63n;
}

/** The metadata of `o`'s internal object. */
export function internalMetadata(o: KubeObject): ObjectMeta {
  const group = o.apiVersion?.includes('/') ? o.apiVersion.slice(0, o.apiVersion.indexOf('/')) : '';
  const moved = MOVED_BY_CONVERSION[`${group}/${o.kind}`];
  const annotations = o.metadata.annotations;
  if (!moved || !annotations || !moved.some((k) => k in annotations)) return o.metadata;
  const kept = { ...annotations };
  for (const k of moved) if (kept[k] !== undefined && isInt64(kept[k])) delete kept[k];
  const { annotations: _, ...rest } = o.metadata;
  return Object.keys(kept).length ? { ...o.metadata, annotations: kept } : rest;
}

/** An object as a metadata-only client asks for it, at meta.k8s.io `apiVersion`. */
export function partialObjectMetadata(o: KubeObject, apiVersion: string): object {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: internalMetadata(o) };
}
