/**
 * Pod creation for the workload controllers, as kube-controller-manager's RealPodControl
 * (pkg/controller/controller_utils.go CreatePods) does it: the pod is created as the controller
 * manager's field manager, a SuccessfulCreate event names it, and a refused create is a
 * FailedCreate event — except in a terminating namespace, which refuses every create and is not
 * worth reporting (HasStatusCause NamespaceTerminatingCause).
 */
import type { ControllerHost } from './controllerhost';
import { StatusError } from '../apimachinery/errors';
import type { KubeObject } from '../apimachinery/types';

const MANAGER = { fieldManager: 'kube-controller-manager' };

/** The created pod, or the apiserver's refusal (other errors are thrown). */
export function createPod(
  cluster: ControllerHost,
  owner: KubeObject,
  pod: KubeObject,
  source: string,
): KubeObject | StatusError {
  try {
    const created = cluster.create(pod, MANAGER);
    cluster.recordEvent(
      owner,
      'Normal',
      'SuccessfulCreate',
      `Created pod: ${created.metadata.name}`,
      source,
    );
    return created;
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    if (!err.message.includes('because it is being terminated'))
      cluster.recordEvent(
        owner,
        'Warning',
        'FailedCreate',
        `Error creating: ${err.message}`,
        source,
      );
    return err;
  }
}
