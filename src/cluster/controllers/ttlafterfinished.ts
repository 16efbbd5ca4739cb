/**
 * The TTL-after-finished controller (kube-controller-manager's ttl-after-finished-controller):
 * a finished Job with spec.ttlSecondsAfterFinished is deleted, foreground (its pods go first),
 * that many seconds after its Complete or Failed condition, on the cluster's clock.
 */
import type { ControllerHost } from './controllerhost';
import { StatusError } from '../apimachinery/errors';
import type { KubeObject } from '../apimachinery/types';
import { JOB } from './job';
import { conditionsOf, specOf } from './jobutil';
import { WorkQueue } from './workqueue';

/** jobFinishTime: when the Job's Complete or Failed condition became True. */
export function jobFinishTime(job: KubeObject): number | undefined {
  const c = conditionsOf(job).find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
  return c ? Date.parse(c.lastTransitionTime) : undefined;
}

/** When a finished Job with a TTL expires; undefined when it does not (yet). */
export function jobExpiresAt(job: KubeObject): number | undefined {
  const ttl = specOf(job).ttlSecondsAfterFinished;
  if (typeof ttl !== 'number' || job.metadata.deletionTimestamp) return undefined;
  const finished = jobFinishTime(job);
  return finished === undefined ? undefined : finished + ttl * 1000;
}

export function startTtlAfterFinishedController(cluster: ControllerHost): () => void {
  const q = new WorkQueue('ttl-after-finished-controller', cluster.clock, (key) => sync(key));

  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const job = cluster.peek(JOB, { namespace: ns, name });
    if (!job) return;
    const at = jobExpiresAt(job);
    if (at === undefined) return;
    const left = at - cluster.clock.now();
    if (left > 0) {
      q.addAfter(key, left);
      return;
    }
    try {
      cluster.delete(
        JOB,
        { namespace: ns, name },
        { propagationPolicy: 'Foreground', preconditions: { uid: job.metadata.uid! } },
      );
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === 'batch/jobs' && c.type !== 'DELETED')
      q.add(`${c.object.metadata.namespace}/${c.object.metadata.name}`);
  });
  return () => {
    unsub();
    q.stop();
  };
}
