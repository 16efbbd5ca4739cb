/**
 * The findings of a Go manager watched from outside (ObservedManager): findings.ts over each of
 * its controllers, with the cluster's Events and the type each controller reconciles read from
 * the cluster's own resources (its logs name the group and kind). Run Go Operator and Debug Go
 * Operator both show these.
 */
import type { Cluster } from '../cluster/cluster';
import type { TypeRef } from '../cluster/apimachinery/types';
import { analyze, type ClusterEvent, type Finding } from './findings';
import type { ObservedManager } from './observedcontroller';

export function observedFindings(observed: ObservedManager, cluster: Cluster): Finding[] {
  const events = cluster.list({ apiVersion: 'v1', kind: 'Event' })
    .items as unknown as ClusterEvent[];
  return observed.all().flatMap((c) => {
    const forType = typeOf(cluster, c.group, c.kind);
    if (!forType) return [];
    return analyze({ controller: c, forType, api: cluster, events, durationMs: 0 });
  });
}

/** The type a controller reconciles, from its logged group and kind and the cluster's resources. */
export function typeOf(cluster: Cluster, group: string, kind: string): TypeRef | undefined {
  const r = cluster.resources().find((x) => x.group === group && x.kind === kind);
  if (!r) return undefined;
  return { apiVersion: group ? `${group}/${r.version}` : r.version, kind };
}
