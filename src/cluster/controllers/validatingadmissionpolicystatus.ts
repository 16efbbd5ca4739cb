/**
 * The ValidatingAdmissionPolicy status controller (kube-controller-manager's
 * validatingadmissionpolicy-status, pkg/controller/validatingadmissionpolicystatus): each policy
 * whose generation is newer than its status.observedGeneration is type-checked
 * (policytypechecking.ts) and its status applied — server-side apply of the status subresource,
 * forced, as field manager `validatingadmissionpolicy-status` — with observedGeneration and
 * typeChecking (expressionWarnings only when there are any).
 */
import { StatusError } from '../apimachinery/errors';
import type { KubeObject } from '../apimachinery/types';
import { rec } from '../apimachinery/unstructured';
import type { ControllerHost } from './controllerhost';
import { checkPolicy } from './policytypechecking';
import { WorkQueue } from './workqueue';

export const VAP_STATUS_CONTROLLER = 'validatingadmissionpolicy-status';
const GROUP_VERSION = 'admissionregistration.k8s.io/v1';
const VAP = { apiVersion: GROUP_VERSION, kind: 'ValidatingAdmissionPolicy' };
const STORAGE_KEY = 'admissionregistration.k8s.io/validatingadmissionpolicies';

/** The status the controller applies to a policy, or undefined when it has observed it already. */
export function policyStatus(
  cluster: ControllerHost,
  policy: KubeObject,
): Record<string, unknown> | undefined {
  const generation = policy.metadata.generation ?? 0;
  const observed = rec(policy.status).observedGeneration;
  if (generation <= (typeof observed === 'number' ? observed : 0)) return undefined;
  const warnings = checkPolicy(policy, cluster.resourceTypes());
  return {
    observedGeneration: generation,
    typeChecking: warnings.length ? { expressionWarnings: warnings } : {},
  };
}

export function startValidatingAdmissionPolicyStatusController(
  cluster: ControllerHost,
): () => void {
  const q = new WorkQueue(VAP_STATUS_CONTROLLER, cluster.clock, (name) => sync(name));

  function sync(name: string): void {
    const policy = cluster.peek(VAP, { name });
    if (!policy) return;
    const status = policyStatus(cluster, policy);
    if (!status) return;
    try {
      cluster.patch(
        VAP,
        { name },
        { apiVersion: GROUP_VERSION, kind: VAP.kind, metadata: { name }, status },
        'apply',
        { fieldManager: VAP_STATUS_CONTROLLER, force: true, subresource: 'status' },
      );
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  for (const p of cluster.scan(VAP)) q.add(p.metadata.name!);
  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === STORAGE_KEY && c.type !== 'DELETED') q.add(c.object.metadata.name!);
  });
  return () => {
    unsub();
    q.stop();
  };
}
