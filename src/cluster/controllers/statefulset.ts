/**
 * The StatefulSet controller (kube-controller-manager's statefulset controller): pods NAME-0 ..
 * NAME-(N-1) with stable identity, made one at a time in ordinal order under OrderedReady (the
 * next once the previous is Running and Ready) or all at once under Parallel; the claims of
 * volumeClaimTemplates created before each pod, with owner references per
 * persistentVolumeClaimRetentionPolicy; a ControllerRevision per pod template (currentRevision /
 * updateRevision, revisionHistoryLimit); RollingUpdate from the highest ordinal down to the
 * partition, scale-down from the highest ordinal, and the status counts, with the real events.
 * Not modelled: adopting orphan pods and revisions, maxUnavailable (the MaxUnavailableStatefulSet
 * gate is off by default in 1.36). The decisions are pure functions in statefulsetutil.ts.
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { controllerOf } from '../apimachinery/controllerref';
import { StatusError } from '../apimachinery/errors';
import type { KubeObject } from '../apimachinery/types';
import type { SetStatus } from './statefulsetutil';
import {
  applyRevision,
  claimHasStalePodRef,
  claimsFor,
  completeRollingUpdate,
  countReplicas,
  endOrdinal,
  equalRevision,
  hasUnexpectedController,
  identityMatches,
  inOrdinalRange,
  inconsistentStatus,
  isAvailable,
  isClaimOwnerUpToDate,
  isCreated,
  isFailedOrSucceeded,
  isMemberOf,
  isPending,
  isRunningAndReady,
  isTerminating,
  isUnavailable,
  newRevision,
  newVersionedPod,
  ordinalOf,
  podRevision,
  replicasOf,
  serializeStatus,
  sortRevisions,
  specOf,
  startOrdinal,
  storageMatches,
  updateClaimOwnerRefs,
  updateIdentity,
  updateStorage,
  updateStrategyType,
} from './statefulsetutil';
import { WorkQueue } from './workqueue';
import { rec } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;
export const STATEFULSET = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const PVC = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const REVISION = { apiVersion: 'apps/v1', kind: 'ControllerRevision' };
const SOURCE = 'statefulset-controller';
const MANAGER = { fieldManager: 'kube-controller-manager' };

const title = (verb: string) => verb[0].toUpperCase() + verb.slice(1);

/** The error a sync stops at; the key is retried with backoff. */
class SyncError extends Error {}

export function startStatefulSetController(cluster: ControllerHost): () => void {
  const q = new WorkQueue(SOURCE, cluster.clock, (key) => sync(key));

  const ownedBy = (set: KubeObject, o: KubeObject) => controllerOf(o)?.uid === set.metadata.uid;

  /** getPodsForStatefulSet: the pods it controls whose name says they are its members. */
  function podsOf(set: KubeObject): KubeObject[] {
    const out: KubeObject[] = [];
    for (const p of cluster.scan(POD, set.metadata.namespace))
      if (ownedBy(set, p) && isMemberOf(set, p)) out.push(p);
    return out;
  }

  function revisionsOf(set: KubeObject): KubeObject[] {
    const out: KubeObject[] = [];
    for (const r of cluster.scan(REVISION, set.metadata.namespace))
      if (ownedBy(set, r)) out.push(r);
    return sortRevisions(out);
  }

  /** recordPodEvent. */
  function podEvent(verb: string, set: KubeObject, pod: KubeObject, err?: Error): void {
    const name = `${pod.metadata.name} in StatefulSet ${set.metadata.name}`;
    if (!err)
      cluster.recordEvent(
        set,
        'Normal',
        `Successful${title(verb)}`,
        `${title(verb)} Pod ${name} successful`,
        SOURCE,
      );
    else
      cluster.recordEvent(
        set,
        'Warning',
        `Failed${title(verb)}`,
        `${title(verb)} Pod ${name} failed error: ${err.message}`,
        SOURCE,
      );
  }

  /** recordClaimEvent. */
  function claimEvent(set: KubeObject, pod: KubeObject, claim: KubeObject, err?: Error): void {
    const c = claim.metadata.name;
    const where = `Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name}`;
    if (!err)
      cluster.recordEvent(
        set,
        'Normal',
        'SuccessfulCreate',
        `Create Claim ${c} ${where} success`,
        SOURCE,
      );
    else
      cluster.recordEvent(
        set,
        'Warning',
        'FailedCreate',
        `Create Claim ${c} for ${where} failed error: ${err.message}`,
        SOURCE,
      );
  }

  /** createPersistentVolumeClaims: the pod's missing claims; throws the failures together. */
  function createClaims(set: KubeObject, pod: KubeObject): void {
    const errs: string[] = [];
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const cur = cluster.peek(PVC, {
        namespace: set.metadata.namespace,
        name: claim.metadata.name!,
      });
      if (cur) {
        if (cur.metadata.deletionTimestamp)
          errs.push(`pvc ${claim.metadata.name} is being deleted`);
        continue;
      }
      try {
        cluster.create(claim, MANAGER);
        claimEvent(set, pod, claim);
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
        errs.push(`failed to create PVC ${claim.metadata.name}: ${err.message}`);
        if (err.code !== 409) claimEvent(set, pod, claim, err);
      }
    }
    if (errs.length === 1) throw new SyncError(errs[0]);
    if (errs.length) throw new SyncError(`[${errs.join(', ')}]`);
  }

  function claimOf(set: KubeObject, name: string): KubeObject | undefined {
    return cluster.peek(PVC, { namespace: set.metadata.namespace, name });
  }

  /** ClaimsMatchRetentionPolicy. */
  function claimsMatchPolicy(set: KubeObject, pod: KubeObject): boolean {
    for (const c of claimsFor(set, ordinalOf(pod)).values()) {
      const cur = claimOf(set, c.metadata.name!);
      if (cur && !isClaimOwnerUpToDate(cur, set, pod)) return false;
    }
    return true;
  }

  /** UpdatePodClaimForRetentionPolicy. */
  function updateClaimsForPolicy(set: KubeObject, pod: KubeObject): void {
    for (const c of claimsFor(set, ordinalOf(pod)).values()) {
      const cur = claimOf(set, c.metadata.name!);
      if (!cur) continue;
      if (hasUnexpectedController(cur, set, pod))
        cluster.recordEvent(
          set,
          'Warning',
          'ConflictingController',
          `PersistentVolumeClaim ${c.metadata.name} has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim`,
          SOURCE,
        );
      if (isClaimOwnerUpToDate(cur, set, pod)) continue;
      const next = clone(cur);
      updateClaimOwnerRefs(next, set, pod);
      try {
        cluster.update(next, MANAGER);
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
        throw new SyncError(
          `could not update claim ${c.metadata.name} for delete policy ownerRefs: ${err.message}`,
        );
      }
    }
  }

  /** CreateStatefulPod: claims first, then the pod, then the claims' owner references. */
  function createPod(set: KubeObject, pod: KubeObject): void {
    try {
      createClaims(set, pod);
    } catch (err) {
      if (err instanceof SyncError) podEvent('create', set, pod, err);
      throw err;
    }
    let created: KubeObject;
    try {
      created = cluster.create(pod, MANAGER);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      if (err.code === 409) throw new SyncError(err.message);
      podEvent('create', set, pod, err);
      throw new SyncError(err.message);
    }
    try {
      updateClaimsForPolicy(set, created);
    } catch (err) {
      if (err instanceof SyncError) podEvent('update', set, created, err);
      throw err;
    }
    podEvent('create', set, created);
  }

  /** UpdateStatefulPod: identity, storage and claim owners restored. */
  function updatePod(set: KubeObject, pod: KubeObject): void {
    const next = clone(pod);
    if (!identityMatches(set, next)) updateIdentity(set, next);
    if (!storageMatches(set, next)) {
      updateStorage(set, next);
      createClaims(set, next);
    }
    if (!claimsMatchPolicy(set, next)) updateClaimsForPolicy(set, next);
    try {
      cluster.update(next, MANAGER);
      podEvent('update', set, next);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      podEvent('update', set, next, err);
      throw new SyncError(err.message);
    }
  }

  /** DeleteStatefulPod. */
  function deletePod(set: KubeObject, pod: KubeObject): void {
    try {
      cluster.delete(POD, { namespace: pod.metadata.namespace, name: pod.metadata.name! });
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      if (err.code !== 404) {
        podEvent('delete', set, pod, err);
        throw new SyncError(err.message);
      }
    }
    podEvent('delete', set, pod);
  }

  /**
   * getStatefulSetRevisions: the update revision is the set's template as a revision (an equal
   * existing one reused, renumbered if it is not the newest); the current one is named by status.
   */
  function getRevisions(
    set: KubeObject,
    revisions: KubeObject[],
  ): { current: KubeObject; update: KubeObject; collisionCount: number } {
    let collisionCount = Number(rec(set.status).collisionCount ?? 0);
    const next = revisions.length ? Number(revisions[revisions.length - 1].revision) + 1 : 1;
    let update = newRevision(set, next, collisionCount);
    const equal = revisions.filter((r) => equalRevision(r, update));
    const latest = revisions[revisions.length - 1];
    if (equal.length && equalRevision(latest, equal[equal.length - 1])) update = latest;
    else if (equal.length) {
      const r = clone(equal[equal.length - 1]);
      r.revision = next;
      update = cluster.update(r, MANAGER);
    } else {
      // CreateControllerRevision: on a name taken by other data, probe the next collision count.
      for (;;) {
        const candidate = newRevision(set, next, collisionCount);
        try {
          update = cluster.create(candidate, MANAGER);
          break;
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 409)) throw err;
          const exists = cluster.peek(REVISION, {
            namespace: set.metadata.namespace,
            name: candidate.metadata.name!,
          });
          if (exists && equalRevision(exists, candidate)) {
            update = exists;
            break;
          }
          collisionCount++;
        }
      }
    }
    const currentName = rec(set.status).currentRevision;
    const current = revisions.find((r) => r.metadata.name === currentName) ?? update;
    return { current, update, collisionCount };
  }

  /** truncateHistory: revisions no pod uses beyond revisionHistoryLimit go, oldest first. */
  function truncateHistory(
    set: KubeObject,
    pods: KubeObject[],
    revisions: KubeObject[],
    live: string[],
  ): void {
    const inUse = new Set([...live, ...pods.map(podRevision)]);
    const history = revisions.filter((r) => !inUse.has(r.metadata.name!));
    const limit = Number(specOf(set).revisionHistoryLimit ?? 10);
    if (limit < 0 || history.length <= limit) return;
    for (const r of history.slice(0, history.length - limit))
      try {
        cluster.delete(REVISION, { namespace: r.metadata.namespace, name: r.metadata.name! });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
  }

  /** syncStatefulSet / UpdateStatefulSet. */
  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const set = cluster.peek(STATEFULSET, { namespace: ns, name });
    if (!set) return;
    const pods = podsOf(set);
    const revisions = revisionsOf(set);
    const { current, update, collisionCount } = getRevisions(set, revisions);
    const nowMs = cluster.clock.now();
    const minReady = Number(specOf(set).minReadySeconds ?? 0);
    const status: SetStatus = {
      observedGeneration: set.metadata.generation,
      replicas: 0,
      readyReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      availableReplicas: 0,
      currentRevision: current.metadata.name!,
      updateRevision: update.metadata.name!,
      collisionCount,
    };
    let failure: unknown;
    try {
      updateStatefulSet(set, current, update, status, pods, nowMs);
    } catch (err) {
      if (!(err instanceof SyncError)) throw err;
      failure = err;
    }
    writeStatus(key, set, status);
    truncateHistory(set, podsOf(set), revisionsOf(set), [
      current.metadata.name!,
      update.metadata.name!,
    ]);
    if (failure) {
      q.addRateLimited(key);
      return;
    }
    q.forget(key);
    // minReadySeconds: look again when the next ready pod becomes available.
    if (minReady > 0 && status.readyReplicas !== status.availableReplicas) {
      let next = minReady * 1000;
      for (const p of pods) {
        if (!isRunningAndReady(p) || isAvailable(p, minReady, nowMs)) continue;
        const conds = rec(p.status).conditions as Obj[];
        const since = Date.parse(String(conds.find((c) => c.type === 'Ready')?.lastTransitionTime));
        if (Number.isFinite(since)) next = Math.min(next, since + minReady * 1000 - nowMs);
      }
      q.addAfter(key, Math.max(next, 1));
    }
  }

  /** updateStatefulSet: one pass over replicas, then the condemned, then one rolling-update step. */
  function updateStatefulSet(
    set: KubeObject,
    current: KubeObject,
    update: KubeObject,
    status: SetStatus,
    pods: KubeObject[],
    nowMs: number,
  ): void {
    const currentSet = applyRevision(set, current);
    const updateSet = applyRevision(set, update);
    const minReady = Number(specOf(set).minReadySeconds ?? 0);
    countReplicas(status, pods, minReady, nowMs);
    const start = startOrdinal(set);
    const replicas: KubeObject[] = new Array<KubeObject>(replicasOf(set));
    const condemned: KubeObject[] = [];
    for (const p of pods) {
      if (inOrdinalRange(p, set)) replicas[ordinalOf(p) - start] = p;
      else if (ordinalOf(p) >= 0) condemned.push(p);
    }
    for (let ord = start; ord <= endOrdinal(set); ord++)
      replicas[ord - start] ??= newVersionedPod(
        currentSet,
        updateSet,
        current.metadata.name!,
        update.metadata.name!,
        ord,
      );
    condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
    const firstUnavailable =
      replicas.find((p) => isUnavailable(p, minReady, nowMs)) ??
      [...condemned].reverse().find((p) => isUnavailable(p, minReady, nowMs));
    if (set.metadata.deletionTimestamp) return;
    const monotonic = specOf(set).podManagementPolicy !== 'Parallel';
    const recount = () => countReplicas(status, [...replicas, ...condemned], minReady, nowMs);

    try {
      // processReplica for each ordinal; under OrderedReady the first that is not ready stops the pass.
      if (
        runForAll(replicas, monotonic, (i) => {
          const p = replicas[i];
          if (isFailedOrSucceeded(p)) {
            if (!isTerminating(p)) deletePod(set, p);
            return true;
          }
          if (!isCreated(p)) {
            if (podClaimIsStale(set, p)) return true;
            createPod(set, p);
            if (monotonic) return true;
          }
          if (isPending(p)) {
            createClaims(set, p);
            updateClaimsForPolicy(set, p);
          }
          if (monotonic && (isTerminating(p) || !isRunningAndReady(p))) return true;
          if (monotonic && !isAvailable(p, minReady, nowMs)) return true;
          if (!isCreated(p)) return false;
          if (identityMatches(set, p) && storageMatches(set, p) && claimsMatchPolicy(updateSet, p))
            return false;
          updatePod(updateSet, p);
          return false;
        })
      )
        return recount();
      // fixPodClaim: the condemned pods' claims take the owners the policy gives scaled-down pods.
      if (
        runForAll(condemned, monotonic, (i) => {
          if (!claimsMatchPolicy(updateSet, condemned[i]))
            updateClaimsForPolicy(updateSet, condemned[i]);
          return false;
        })
      )
        return recount();
      // processCondemned: from the highest ordinal, each once the one before it is gone.
      if (
        runForAll(condemned, monotonic, (i) => {
          const p = condemned[i];
          if (isTerminating(p)) return monotonic;
          if (monotonic && p !== firstUnavailable && !isAvailable(p, minReady, nowMs)) return true;
          deletePod(set, p);
          return true;
        })
      )
        return recount();
    } catch (err) {
      recount();
      throw err;
    }
    recount();
    if (updateStrategyType(set) === 'OnDelete') return;
    // RollingUpdate: the highest ordinal at or above the partition not at the update revision goes.
    const ru = rec(rec(specOf(set).updateStrategy).rollingUpdate);
    const updateMin = Number(ru.partition ?? 0);
    for (let target = replicas.length - 1; target >= updateMin; target--) {
      const p = replicas[target];
      if (podRevision(p) !== update.metadata.name && !isTerminating(p)) {
        deletePod(set, p);
        status.currentReplicas--;
        return;
      }
      if (isUnavailable(p, minReady, nowMs)) return;
    }
  }

  /** PodClaimIsStale: under whenScaled Delete, a claim still owned by an earlier pod blocks re-creation. */
  function podClaimIsStale(set: KubeObject, pod: KubeObject): boolean {
    const policy = rec(specOf(set).persistentVolumeClaimRetentionPolicy);
    if ((policy.whenScaled ?? 'Retain') === 'Retain') return false;
    for (const c of claimsFor(set, ordinalOf(pod)).values()) {
      const cur = claimOf(set, c.metadata.name!);
      if (cur && claimHasStalePodRef(cur, pod)) return true;
    }
    return false;
  }

  /** updateStatefulSetStatus: completeRollingUpdate, then UpdateStatus when anything changed. */
  function writeStatus(key: string, set: KubeObject, status: SetStatus): void {
    completeRollingUpdate(set, status);
    const stored = cluster.peek(STATEFULSET, {
      namespace: set.metadata.namespace,
      name: set.metadata.name!,
    });
    if (!stored || stored.metadata.uid !== set.metadata.uid) return;
    if (!inconsistentStatus(stored, status)) return;
    const next = clone(stored);
    next.status = serializeStatus(status, rec(stored.status).conditions);
    try {
      cluster.update(next, { subresource: 'status', ...MANAGER });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
      if (err.code === 409) q.add(key);
    }
  }

  const keyOf = (ns: string | undefined, name: string) => `${ns ?? ''}/${name}`;
  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === 'apps/statefulsets') {
      if (c.type !== 'DELETED') q.add(keyOf(c.object.metadata.namespace, c.object.metadata.name!));
      return;
    }
    if (c.storageKey === '/pods') {
      const owner = controllerOf(c.object);
      if (owner?.kind === 'StatefulSet' && owner.apiVersion.startsWith('apps/'))
        q.add(keyOf(c.object.metadata.namespace, owner.name));
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}

/**
 * runForAll: in order, stopping at the first pod that asks to (OrderedReady), or every pod
 * (Parallel, where slowStartBatch runs them all); whether the pass stopped early.
 */
function runForAll(pods: KubeObject[], monotonic: boolean, fn: (i: number) => boolean): boolean {
  if (monotonic) {
    for (let i = 0; i < pods.length; i++) if (fn(i)) return true;
    return false;
  }
  let failed: unknown;
  for (let i = 0; i < pods.length; i++)
    try {
      fn(i);
    } catch (err) {
      failed ??= err;
    }
  if (failed) throw failed;
  return false;
}
