/**
 * An object of the embedded cluster by the kind a Go debugger names (the Go type's name, no
 * group): the Debug Go Operator session reads the reconciled object there to show it as read
 * and as it is now.
 */
import type { Cluster } from '../../cluster/cluster';
import type { KubeObject } from '../../cluster/apimachinery/types';

export function objectByKind(
  cluster: Cluster,
  kind: string,
  namespace: string,
  name: string,
): KubeObject | undefined {
  const types = cluster.registry.all().filter((t) => t.info.kind === kind);
  // A kind served in several versions: its storage version, as the manager's scheme most often
  // registers it. Two groups with one kind name: the first, the same guess `kubectl get` makes.
  const type = types.find((t) => t.apiVersion === t.storageApiVersion) ?? types[0];
  if (!type) return undefined;
  try {
    return cluster.get(
      { apiVersion: type.apiVersion, kind },
      { namespace: type.info.namespaced ? namespace : undefined, name },
    );
  } catch {
    return undefined; // deleted since: nothing to show
  }
}
