/**
 * The findings of a Go manager watched from outside (ObservedManager): findings.ts over each of
 * its controllers, with the cluster's Events, the objects their owner chains walk through and the
 * type each controller reconciles (its logs name only the group and kind) read from a
 * FindingsSource — the embedded cluster's own resources (clusterFindingsSource), or what is read
 * of a real cluster while a session runs on it (remotefindings.ts). Run Go Operator and Debug Go
 * Operator both show these.
 */
import type { Cluster } from '../cluster/cluster';
import type { ResourceInfo, TypeRef } from '../cluster/apimachinery/types';
import { analyze, type ClusterEvent, type Finding, type ObjectReader } from './findings';
import type { ObservedManager } from './observedcontroller';

/** What findings read of the cluster a manager runs against. */
export interface FindingsSource {
  /** Its core/v1 Events (findings keep the ones isFindingEvent names). */
  events(): ClusterEvent[];
  /** The objects an Event's owner chain walks through, read synchronously. */
  readonly objects: ObjectReader;
  /** The type a controller reconciles, from its logged group and kind; undefined when not served. */
  typeOf(group: string, kind: string): TypeRef | undefined;
}

export function observedFindings(observed: ObservedManager, source: FindingsSource): Finding[] {
  const events = source.events();
  return observed.all().flatMap((c) => {
    const forType = source.typeOf(c.group, c.kind);
    if (!forType) return [];
    return analyze({ controller: c, forType, api: source.objects, events, durationMs: 0 });
  });
}

/** The embedded cluster as findings read it: its Events, objects and resources, as they are now. */
export function clusterFindingsSource(cluster: Cluster): FindingsSource {
  return {
    events: () =>
      cluster.list({ apiVersion: 'v1', kind: 'Event' }).items as unknown as ClusterEvent[],
    objects: cluster,
    typeOf: (group, kind) => typeOf(cluster, group, kind),
  };
}

/** The type a controller reconciles, from its logged group and kind and the cluster's resources. */
export function typeOf(cluster: Cluster, group: string, kind: string): TypeRef | undefined {
  return typeIn(cluster.resources(), group, kind);
}

/** The served type of a group and kind among discovered resources (the first version listed). */
export function typeIn(
  resources: ResourceInfo[],
  group: string,
  kind: string,
): TypeRef | undefined {
  const r = resources.find((x) => x.group === group && x.kind === kind);
  if (!r) return undefined;
  return { apiVersion: group ? `${group}/${r.version}` : r.version, kind };
}
