/**
 * The StatefulSet controller's decisions, as pure functions (kube-controller-manager's
 * statefulset/stateful_set_utils.go): pod identity (NAME-ORDINAL, the pod-name and pod-index
 * labels, hostname and subdomain), the claims of volumeClaimTemplates (TEMPLATE-NAME-ORDINAL) and
 * their owner references under persistentVolumeClaimRetentionPolicy, the ControllerRevision of a
 * pod template (named by the FNV-1 hash of the same JSON bytes Go hashes), and the status counts.
 */
import { clone } from '../apimachinery/clone';
import { newControllerRef } from '../apimachinery/controllerref';
import { isObject } from '../apimachinery/patch';
import type { KubeObject, OwnerReference } from '../apimachinery/types';
import { fnv132 } from '../../util/fnv';
import { goMarshal } from '../../util/gojson';
import { isPodReady } from './replicaset';
import { rec } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
export const REVISION_LABEL = 'controller-revision-hash';
export const HISTORY_HASH_LABEL = 'controller.kubernetes.io/hash';

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

export function specOf(o: KubeObject): Obj {
  return rec(o.spec);
}

/** getParentNameAndOrdinal: NAME-ORDINAL, or ordinal -1. */
export function parentAndOrdinal(pod: KubeObject): { parent: string; ordinal: number } {
  const m = /^(.*)-([0-9]+)$/.exec(pod.metadata.name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  return { parent: m[1], ordinal: n <= 2 ** 31 - 1 ? n : -1 };
}

export const ordinalOf = (pod: KubeObject) => parentAndOrdinal(pod).ordinal;

export function replicasOf(set: KubeObject): number {
  const r = specOf(set).replicas;
  return typeof r === 'number' ? r : 1;
}

export function startOrdinal(set: KubeObject): number {
  return num(rec(specOf(set).ordinals).start);
}

export function endOrdinal(set: KubeObject): number {
  return startOrdinal(set) + replicasOf(set) - 1;
}

export function inOrdinalRange(pod: KubeObject, set: KubeObject): boolean {
  const o = ordinalOf(pod);
  return o >= startOrdinal(set) && o <= endOrdinal(set);
}

export const podName = (set: KubeObject, ordinal: number) => `${set.metadata.name}-${ordinal}`;

export function claimName(set: KubeObject, template: Obj, ordinal: number): string {
  return `${String(rec(template.metadata).name)}-${set.metadata.name}-${ordinal}`;
}

function claimTemplates(set: KubeObject): Obj[] {
  const t = specOf(set).volumeClaimTemplates;
  return Array.isArray(t) ? (t as Obj[]) : [];
}

export function isMemberOf(set: KubeObject, pod: KubeObject): boolean {
  return parentAndOrdinal(pod).parent === set.metadata.name;
}

/** identityMatches. */
export function identityMatches(set: KubeObject, pod: KubeObject): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  return (
    ordinal >= 0 &&
    parent === set.metadata.name &&
    pod.metadata.namespace === set.metadata.namespace &&
    pod.metadata.labels?.[POD_NAME_LABEL] === pod.metadata.name
  );
}

function volumesOf(pod: KubeObject): Obj[] {
  const v = specOf(pod).volumes;
  return Array.isArray(v) ? (v as Obj[]) : [];
}

/** storageMatches: every claim template is mounted from this ordinal's claim. */
export function storageMatches(set: KubeObject, pod: KubeObject): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map(volumesOf(pod).map((v) => [String(v.name), v]));
  return claimTemplates(set).every((t) => {
    const v = volumes.get(String(rec(t.metadata).name));
    return rec(v?.persistentVolumeClaim).claimName === claimName(set, t, ordinal);
  });
}

/** getPersistentVolumeClaims: the claims a pod of this ordinal mounts, by template name. */
export function claimsFor(set: KubeObject, ordinal: number): Map<string, KubeObject> {
  const out = new Map<string, KubeObject>();
  const selector = rec(rec(specOf(set).selector).matchLabels) as Record<string, string>;
  for (const t of claimTemplates(set)) {
    const c = clone(t);
    const md = rec(c.metadata);
    const claim: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      ...c,
      metadata: {
        ...md,
        name: claimName(set, t, ordinal),
        namespace: set.metadata.namespace,
        labels: isObject(md.labels) ? { ...(md.labels as object), ...selector } : { ...selector },
      },
    };
    delete claim.status;
    out.set(String(md.name), claim);
  }
  return out;
}

/** updateStorage: the claims' volumes, then the pod's other volumes. */
export function updateStorage(set: KubeObject, pod: KubeObject): void {
  const claims = claimsFor(set, ordinalOf(pod));
  const volumes: Obj[] = [...claims].map(([name, c]) => ({
    name,
    persistentVolumeClaim: { claimName: c.metadata.name },
  }));
  for (const v of volumesOf(pod)) if (!claims.has(String(v.name))) volumes.push(v);
  if (volumes.length) rec(pod.spec).volumes = volumes;
}

/** updateIdentity. */
export function updateIdentity(set: KubeObject, pod: KubeObject): void {
  const ordinal = ordinalOf(pod);
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata.namespace;
  pod.metadata.labels = {
    ...(pod.metadata.labels ?? {}),
    [POD_NAME_LABEL]: pod.metadata.name,
    [POD_INDEX_LABEL]: String(ordinal),
  };
}

/** newStatefulSetPod: GetPodFromTemplate, then identity (hostname, subdomain) and storage. */
export function newStatefulSetPod(set: KubeObject, ordinal: number): KubeObject {
  const tmpl = rec(specOf(set).template);
  const md = rec(tmpl.metadata);
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(set, ordinal),
      generateName: `${set.metadata.name}-`,
      ...(isObject(md.labels) ? { labels: { ...(md.labels as Record<string, string>) } } : {}),
      ...(isObject(md.annotations)
        ? { annotations: { ...(md.annotations as Record<string, string>) } }
        : {}),
      ...(Array.isArray(md.finalizers) ? { finalizers: [...(md.finalizers as string[])] } : {}),
      ownerReferences: [newControllerRef(set, 'apps/v1', 'StatefulSet')],
    },
    spec: clone(rec(tmpl.spec)),
  };
  updateIdentity(set, pod);
  const spec = rec(pod.spec);
  spec.hostname = pod.metadata.name;
  if (specOf(set).serviceName) spec.subdomain = specOf(set).serviceName;
  updateStorage(set, pod);
  return pod;
}

function rollingPartition(set: KubeObject): number | undefined {
  const ru = rec(specOf(set).updateStrategy).rollingUpdate;
  return isObject(ru) ? num(ru.partition) : undefined;
}

export function updateStrategyType(set: KubeObject): string {
  return String(rec(specOf(set).updateStrategy).type ?? 'RollingUpdate');
}

/**
 * newVersionedStatefulSetPod: below the partition (or, without rollingUpdate, below
 * currentReplicas) a pod is made at the current revision, else at the update revision. The
 * condition keeps Go's precedence: `rolling && noPartitionBelowCurrent || belowPartition`.
 */
export function newVersionedPod(
  currentSet: KubeObject,
  updateSet: KubeObject,
  currentRevision: string,
  updateRevision: string,
  ordinal: number,
): KubeObject {
  const partition = rollingPartition(currentSet);
  const start = startOrdinal(currentSet);
  const useCurrent =
    (updateStrategyType(currentSet) === 'RollingUpdate' &&
      partition === undefined &&
      ordinal < start + num(rec(currentSet.status).currentReplicas)) ||
    (partition !== undefined && ordinal < start + partition);
  const pod = newStatefulSetPod(useCurrent ? currentSet : updateSet, ordinal);
  pod.metadata.labels = {
    ...pod.metadata.labels,
    [REVISION_LABEL]: useCurrent ? currentRevision : updateRevision,
  };
  return pod;
}

export const podRevision = (pod: KubeObject) => pod.metadata.labels?.[REVISION_LABEL] ?? '';

/** getPatch: the JSON bytes of `{spec: {template: ..., $patch: replace}}` as Go marshals them. */
export function revisionPatch(set: KubeObject): Obj {
  return { spec: { template: { ...clone(rec(specOf(set).template)), $patch: 'replace' } } };
}

/** HashControllerRevision + rand.SafeEncodeString. */
export function revisionHash(data: unknown, collisionCount: number): string {
  const digits = String(fnv132(goMarshal(data) + String(collisionCount)));
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (const d of digits) out += alphabet[d.charCodeAt(0) % alphabet.length];
  return out;
}

/** newRevision: the ControllerRevision of the set's pod template at `revision`. */
export function newRevision(set: KubeObject, revision: number, collisionCount: number): KubeObject {
  const data = revisionPatch(set);
  const hash = revisionHash(data, collisionCount);
  const tmplLabels = rec(rec(rec(specOf(set).template).metadata).labels) as Record<string, string>;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${String(set.metadata.name).slice(0, 223)}-${hash}`,
      namespace: set.metadata.namespace,
      labels: { ...tmplLabels, [HISTORY_HASH_LABEL]: hash },
      ...(set.metadata.annotations ? { annotations: { ...set.metadata.annotations } } : {}),
      ownerReferences: [newControllerRef(set, 'apps/v1', 'StatefulSet')],
    },
    data,
    revision,
  };
}

/** ApplyRevision: the set with the revision's pod template (the patch replaces it whole). */
export function applyRevision(set: KubeObject, revision: KubeObject): KubeObject {
  const out = clone(set);
  const tmpl = clone(rec(rec(rec(revision.data).spec).template));
  delete tmpl.$patch;
  rec(out.spec).template = tmpl;
  return out;
}

/** SortControllerRevisions: by revision, then creation time, then name. */
export function sortRevisions(revisions: KubeObject[]): KubeObject[] {
  return [...revisions].sort(
    (a, b) =>
      num(a.revision) - num(b.revision) ||
      String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)) ||
      String(a.metadata.name).localeCompare(String(b.metadata.name)),
  );
}

/** EqualRevision: the same data bytes. */
export function equalRevision(a: KubeObject, b: KubeObject): boolean {
  return goMarshal(a.data) === goMarshal(b.data);
}

const phaseOf = (p: KubeObject) => String(rec(p.status).phase ?? '');
export const isCreated = (p: KubeObject) => phaseOf(p) !== '';
export const isPending = (p: KubeObject) => phaseOf(p) === 'Pending';
export const isFailedOrSucceeded = (p: KubeObject) =>
  phaseOf(p) === 'Failed' || phaseOf(p) === 'Succeeded';
export const isTerminating = (p: KubeObject) => Boolean(p.metadata.deletionTimestamp);
export const isRunningAndReady = (p: KubeObject) => phaseOf(p) === 'Running' && isPodReady(p);

/** podutil.IsPodAvailable: ready for at least minReadySeconds at `nowMs`. */
export function isAvailable(p: KubeObject, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(p)) return false;
  if (minReadySeconds <= 0) return true;
  const conds = rec(p.status).conditions as Obj[];
  const ready = conds.find((c) => c.type === 'Ready');
  const since = Date.parse(String(ready?.lastTransitionTime));
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= nowMs;
}

export const isUnavailable = (p: KubeObject, minReadySeconds: number, nowMs: number) =>
  !isAvailable(p, minReadySeconds, nowMs) || isTerminating(p);

export interface SetStatus {
  observedGeneration?: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
}

/** updateStatus / computeReplicaStatus over the pods the sync knows. */
export function countReplicas(
  status: SetStatus,
  pods: KubeObject[],
  minReadySeconds: number,
  nowMs: number,
): void {
  status.replicas = status.readyReplicas = status.availableReplicas = 0;
  status.currentReplicas = status.updatedReplicas = 0;
  for (const p of pods) {
    if (isCreated(p)) status.replicas++;
    if (isRunningAndReady(p)) {
      status.readyReplicas++;
      if (isAvailable(p, minReadySeconds, nowMs)) status.availableReplicas++;
    }
    if (isCreated(p) && !isTerminating(p)) {
      if (podRevision(p) === status.currentRevision) status.currentReplicas++;
      if (podRevision(p) === status.updateRevision) status.updatedReplicas++;
    }
  }
}

/** completeRollingUpdate: once every replica is updated and ready, the update is the current. */
export function completeRollingUpdate(set: KubeObject, status: SetStatus): void {
  const n = replicasOf(set);
  if (
    updateStrategyType(set) === 'RollingUpdate' &&
    status.updatedReplicas === n &&
    status.readyReplicas === n &&
    status.replicas === n
  ) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

/** inconsistentStatus: whether the stored status differs from the computed one. */
export function inconsistentStatus(set: KubeObject, s: SetStatus): boolean {
  const old = rec(set.status);
  return (
    num(s.observedGeneration) > num(old.observedGeneration) ||
    s.replicas !== num(old.replicas) ||
    s.currentReplicas !== num(old.currentReplicas) ||
    s.readyReplicas !== num(old.readyReplicas) ||
    s.updatedReplicas !== num(old.updatedReplicas) ||
    s.currentRevision !== String(old.currentRevision ?? '') ||
    s.availableReplicas !== num(old.availableReplicas) ||
    s.updateRevision !== String(old.updateRevision ?? '')
  );
}

/** StatefulSetStatus as Go serializes it (omitempty counters; replicas, availableReplicas always). */
export function serializeStatus(s: SetStatus, conditions: unknown): Obj {
  const out: Obj = {};
  if (s.observedGeneration) out.observedGeneration = s.observedGeneration;
  out.replicas = s.replicas;
  if (s.readyReplicas) out.readyReplicas = s.readyReplicas;
  if (s.currentReplicas) out.currentReplicas = s.currentReplicas;
  if (s.updatedReplicas) out.updatedReplicas = s.updatedReplicas;
  if (s.currentRevision) out.currentRevision = s.currentRevision;
  if (s.updateRevision) out.updateRevision = s.updateRevision;
  out.collisionCount = s.collisionCount;
  if (Array.isArray(conditions) && conditions.length) out.conditions = conditions;
  out.availableReplicas = s.availableReplicas;
  return out;
}

// --- persistentVolumeClaimRetentionPolicy (owner references of the claims) ---

interface Policy {
  whenDeleted: string;
  whenScaled: string;
}

function policyOf(set: KubeObject): Policy {
  const p = rec(specOf(set).persistentVolumeClaimRetentionPolicy);
  return {
    whenDeleted: String(p.whenDeleted ?? 'Retain'),
    whenScaled: String(p.whenScaled ?? 'Retain'),
  };
}

const refs = (o: KubeObject): OwnerReference[] => o.metadata.ownerReferences ?? [];

function matchesRef(r: OwnerReference, o: KubeObject, apiVersion: string, kind: string): boolean {
  return r.apiVersion === apiVersion && r.kind === kind && r.name === o.metadata.name;
}

const matchesSet = (r: OwnerReference, set: KubeObject) =>
  matchesRef(r, set, 'apps/v1', 'StatefulSet');
const matchesPod = (r: OwnerReference, pod: KubeObject) => matchesRef(r, pod, 'v1', 'Pod');
const hasOwnerRef = (o: KubeObject, owner: KubeObject) =>
  refs(o).some((r) => r.uid === owner.metadata.uid);

/** hasUnexpectedController: another controller manages the claim. */
export function hasUnexpectedController(
  claim: KubeObject,
  set: KubeObject,
  pod: KubeObject,
): boolean {
  const p = policyOf(set);
  if (p.whenScaled === 'Retain' && p.whenDeleted === 'Retain') return false;
  for (const r of refs(claim)) {
    if (matchesSet(r, set)) {
      if (r.uid !== set.metadata.uid) return true;
      continue;
    }
    if (matchesPod(r, pod)) {
      if (r.uid !== pod.metadata.uid) return true;
      continue;
    }
    if (r.controller) return true;
  }
  return false;
}

function hasStaleOwnerRef(claim: KubeObject, o: KubeObject, isSet: boolean): boolean {
  const r = refs(claim).find((x) => (isSet ? matchesSet(x, o) : matchesPod(x, o)));
  return r ? r.uid !== o.metadata.uid : false;
}

/** PodClaimIsStale's test for one claim: it names an earlier pod of this ordinal. */
export const claimHasStalePodRef = (claim: KubeObject, pod: KubeObject) =>
  hasStaleOwnerRef(claim, pod, false);

/** isClaimOwnerUpToDate. */
export function isClaimOwnerUpToDate(claim: KubeObject, set: KubeObject, pod: KubeObject): boolean {
  if (hasStaleOwnerRef(claim, set, true) || hasStaleOwnerRef(claim, pod, false)) return true;
  if (hasUnexpectedController(claim, set, pod))
    return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  const nonController = refs(claim).some(
    (r) => (r.uid === set.metadata.uid || r.uid === pod.metadata.uid) && !r.controller,
  );
  if (nonController) return false;
  const p = policyOf(set);
  const scaledDown = !inOrdinalRange(pod, set);
  if (p.whenScaled === 'Delete' && p.whenDeleted === 'Delete')
    return scaledDown !== hasOwnerRef(claim, set) && scaledDown === hasOwnerRef(claim, pod);
  if (p.whenScaled === 'Delete')
    return !hasOwnerRef(claim, set) && scaledDown === hasOwnerRef(claim, pod);
  if (p.whenDeleted === 'Delete') return hasOwnerRef(claim, set) && !hasOwnerRef(claim, pod);
  return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
}

/** updateClaimOwnerRefForSetAndPod: the claim's owner references as the policy wants them. */
export function updateClaimOwnerRefs(claim: KubeObject, set: KubeObject, pod: KubeObject): void {
  const unexpected = hasUnexpectedController(claim, set, pod);
  let out = refs(claim).filter((r) => !(matchesSet(r, set) || matchesPod(r, pod)));
  const add = (owner: KubeObject, apiVersion: string, kind: string) => {
    if (!out.some((r) => r.uid === owner.metadata.uid))
      out = [...out, newControllerRef(owner, apiVersion, kind)];
  };
  if (!unexpected) {
    const p = policyOf(set);
    const scaledDown = !inOrdinalRange(pod, set);
    if (p.whenScaled === 'Delete' && scaledDown) add(pod, 'v1', 'Pod');
    if (p.whenDeleted === 'Delete' && (p.whenScaled !== 'Delete' || !scaledDown))
      add(set, 'apps/v1', 'StatefulSet');
  }
  if (out.length) claim.metadata.ownerReferences = out;
  else delete claim.metadata.ownerReferences;
}
