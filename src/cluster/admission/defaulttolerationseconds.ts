/**
 * The DefaultTolerationSeconds admission plugin: every pod (create or update, not its
 * subresources) that does not already tolerate the node lifecycle controller's NoExecute taints
 * `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable` gets a toleration of each for
 * 300 s, as kube-apiserver's plugin adds them (a toleration with an empty key or an empty effect
 * counts as tolerating the taint).
 */
import type { MutatingAdmissionPlugin } from '../cluster';
import { isObject } from '../apimachinery/patch';

/** kube-apiserver's --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds. */
export const DEFAULT_TOLERATION_SECONDS = 300;
const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

export const defaultTolerationSeconds: MutatingAdmissionPlugin = (a) => {
  // admission.NewHandler(admission.Create, admission.Update)
  if (a.operation === 'DELETE') return;
  if (a.type.info.group !== '' || a.type.info.plural !== 'pods' || a.subresource) return;
  if (!isObject(a.object.spec)) a.object.spec = {};
  const spec = a.object.spec as Record<string, unknown>;
  const tolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as unknown[]) : [];
  const tolerates = (taint: string) =>
    tolerations.some((t) => {
      const { key, effect } = isObject(t) ? t : {};
      return (key === taint || !key) && (effect === 'NoExecute' || !effect);
    });
  const added = [NOT_READY, UNREACHABLE]
    .filter((taint) => !tolerates(taint))
    .map((key) => ({
      key,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: DEFAULT_TOLERATION_SECONDS,
    }));
  if (added.length) spec.tolerations = [...tolerations, ...added];
};
