/**
 * Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), which
 * kubectl's typed commands (`kubectl create deployment|configmap|secret|namespace|...`, `kubectl
 * run`) and client-go programs send for built-in kinds. The body is the `k8s\0` envelope around a
 * runtime.Unknown whose raw bytes are the object in the generated.proto encoding; this turns it
 * into the same JSON the object would have been sent as. Responses stay JSON, which those
 * clients accept as their second choice.
 *
 * Only the messages of the kinds the cluster serves are described (field numbers from
 * k8s.io/api generated.proto); fields of unknown messages (affinity, ...) are skipped.
 */
import { newBadRequest, newUnsupportedMediaType } from './errors';

type Json = Record<string, unknown>;

/** A field: JSON name, type, flags (r: repeated, p: pointer so zero values count, i: inlined). */
type Field = [name: string, type: string, flags?: string];
type Message = Record<number, Field>;

const META: Record<string, Message> = {
  ObjectMeta: {
    1: ['name', 's'],
    2: ['generateName', 's'],
    3: ['namespace', 's'],
    4: ['selfLink', 's'],
    5: ['uid', 's'],
    6: ['resourceVersion', 's'],
    7: ['generation', 'i64'],
    8: ['creationTimestamp', 't'],
    9: ['deletionTimestamp', 't'],
    10: ['deletionGracePeriodSeconds', 'i64', 'p'],
    11: ['labels', 'ms'],
    12: ['annotations', 'ms'],
    13: ['ownerReferences', 'OwnerReference', 'r'],
    14: ['finalizers', 's', 'r'],
    17: ['managedFields', 'ManagedFieldsEntry', 'r'],
  },
  OwnerReference: {
    1: ['kind', 's'],
    3: ['name', 's'],
    4: ['uid', 's'],
    5: ['apiVersion', 's'],
    6: ['controller', 'b', 'p'],
    7: ['blockOwnerDeletion', 'b', 'p'],
  },
  ManagedFieldsEntry: {
    1: ['manager', 's'],
    2: ['operation', 's'],
    3: ['apiVersion', 's'],
    4: ['time', 't'],
    6: ['fieldsType', 's'],
    7: ['fieldsV1', 'f1'],
    8: ['subresource', 's'],
  },
  LabelSelector: {
    1: ['matchLabels', 'ms'],
    2: ['matchExpressions', 'LabelSelectorRequirement', 'r'],
  },
  LabelSelectorRequirement: { 1: ['key', 's'], 2: ['operator', 's'], 3: ['values', 's', 'r'] },
};

const CORE: Record<string, Message> = {
  ConfigMap: {
    1: ['metadata', 'ObjectMeta'],
    2: ['data', 'ms'],
    3: ['binaryData', 'mb'],
    4: ['immutable', 'b', 'p'],
  },
  Secret: {
    1: ['metadata', 'ObjectMeta'],
    2: ['data', 'mb'],
    3: ['type', 's'],
    4: ['stringData', 'ms'],
    5: ['immutable', 'b', 'p'],
  },
  Namespace: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'NamespaceSpec'] },
  NamespaceSpec: { 1: ['finalizers', 's', 'r'] },
  ServiceAccount: {
    1: ['metadata', 'ObjectMeta'],
    2: ['secrets', 'ObjectReference', 'r'],
    3: ['imagePullSecrets', 'LocalObjectReference', 'r'],
    4: ['automountServiceAccountToken', 'b', 'p'],
  },
  ObjectReference: {
    1: ['kind', 's'],
    2: ['namespace', 's'],
    3: ['name', 's'],
    4: ['uid', 's'],
    5: ['apiVersion', 's'],
    6: ['resourceVersion', 's'],
    7: ['fieldPath', 's'],
  },
  LocalObjectReference: { 1: ['name', 's'] },
  Service: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'ServiceSpec'] },
  ServiceSpec: {
    1: ['ports', 'ServicePort', 'r'],
    2: ['selector', 'ms'],
    3: ['clusterIP', 's'],
    4: ['type', 's'],
    5: ['externalIPs', 's', 'r'],
    7: ['sessionAffinity', 's'],
    10: ['externalName', 's'],
    11: ['externalTrafficPolicy', 's'],
    13: ['publishNotReadyAddresses', 'b'],
    18: ['clusterIPs', 's', 'r'],
    19: ['ipFamilies', 's', 'r'],
    17: ['ipFamilyPolicy', 's', 'p'],
    22: ['internalTrafficPolicy', 's', 'p'],
  },
  ServicePort: {
    1: ['name', 's'],
    2: ['protocol', 's'],
    6: ['appProtocol', 's', 'p'],
    3: ['port', 'i32', 'p'],
    4: ['targetPort', 'ios'],
    5: ['nodePort', 'i32'],
  },
  Pod: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'PodSpec'] },
  PodTemplateSpec: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'PodSpec'] },
  PodSpec: {
    1: ['volumes', 'Volume', 'r'],
    20: ['initContainers', 'Container', 'r'],
    2: ['containers', 'Container', 'r'],
    3: ['restartPolicy', 's'],
    4: ['terminationGracePeriodSeconds', 'i64', 'p'],
    5: ['activeDeadlineSeconds', 'i64', 'p'],
    6: ['dnsPolicy', 's'],
    7: ['nodeSelector', 'ms'],
    8: ['serviceAccountName', 's'],
    9: ['serviceAccount', 's'],
    21: ['automountServiceAccountToken', 'b', 'p'],
    10: ['nodeName', 's'],
    11: ['hostNetwork', 'b'],
    14: ['securityContext', 'PodSecurityContext'],
    15: ['imagePullSecrets', 'LocalObjectReference', 'r'],
    16: ['hostname', 's'],
    17: ['subdomain', 's'],
    19: ['schedulerName', 's'],
    22: ['tolerations', 'Toleration', 'r'],
    24: ['priorityClassName', 's'],
    25: ['priority', 'i32', 'p'],
    30: ['enableServiceLinks', 'b', 'p'],
    31: ['preemptionPolicy', 's', 'p'],
  },
  Container: {
    1: ['name', 's'],
    2: ['image', 's'],
    3: ['command', 's', 'r'],
    4: ['args', 's', 'r'],
    5: ['workingDir', 's'],
    6: ['ports', 'ContainerPort', 'r'],
    19: ['envFrom', 'EnvFromSource', 'r'],
    7: ['env', 'EnvVar', 'r'],
    8: ['resources', 'ResourceRequirements'],
    24: ['restartPolicy', 's', 'p'],
    9: ['volumeMounts', 'VolumeMount', 'r'],
    10: ['livenessProbe', 'Probe'],
    11: ['readinessProbe', 'Probe'],
    22: ['startupProbe', 'Probe'],
    13: ['terminationMessagePath', 's'],
    20: ['terminationMessagePolicy', 's'],
    14: ['imagePullPolicy', 's'],
    15: ['securityContext', 'SecurityContext'],
    16: ['stdin', 'b'],
    17: ['stdinOnce', 'b'],
    18: ['tty', 'b'],
  },
  ContainerPort: {
    1: ['name', 's'],
    2: ['hostPort', 'i32'],
    3: ['containerPort', 'i32', 'p'],
    4: ['protocol', 's'],
    5: ['hostIP', 's'],
  },
  EnvVar: { 1: ['name', 's'], 2: ['value', 's'], 3: ['valueFrom', 'EnvVarSource'] },
  EnvVarSource: {
    1: ['fieldRef', 'ObjectFieldSelector'],
    2: ['resourceFieldRef', 'ResourceFieldSelector'],
    3: ['configMapKeyRef', 'ConfigMapKeySelector'],
    4: ['secretKeyRef', 'SecretKeySelector'],
  },
  ConfigMapKeySelector: {
    1: ['', 'LocalObjectReference', 'i'],
    2: ['key', 's'],
    3: ['optional', 'b', 'p'],
  },
  SecretKeySelector: {
    1: ['', 'LocalObjectReference', 'i'],
    2: ['key', 's'],
    3: ['optional', 'b', 'p'],
  },
  ObjectFieldSelector: { 1: ['apiVersion', 's'], 2: ['fieldPath', 's'] },
  ResourceFieldSelector: { 1: ['containerName', 's'], 2: ['resource', 's'], 3: ['divisor', 'q'] },
  EnvFromSource: {
    1: ['prefix', 's'],
    2: ['configMapRef', 'ConfigMapEnvSource'],
    3: ['secretRef', 'SecretEnvSource'],
  },
  ConfigMapEnvSource: { 1: ['', 'LocalObjectReference', 'i'], 2: ['optional', 'b', 'p'] },
  SecretEnvSource: { 1: ['', 'LocalObjectReference', 'i'], 2: ['optional', 'b', 'p'] },
  ResourceRequirements: { 1: ['limits', 'mq'], 2: ['requests', 'mq'] },
  VolumeMount: {
    1: ['name', 's'],
    2: ['readOnly', 'b'],
    3: ['mountPath', 's'],
    4: ['subPath', 's'],
    6: ['subPathExpr', 's'],
  },
  Volume: { 1: ['name', 's'], 2: ['', 'VolumeSource', 'i'] },
  VolumeSource: {
    2: ['emptyDir', 'EmptyDirVolumeSource'],
    6: ['secret', 'SecretVolumeSource'],
    19: ['configMap', 'ConfigMapVolumeSource'],
  },
  EmptyDirVolumeSource: { 1: ['medium', 's'], 2: ['sizeLimit', 'q'] },
  SecretVolumeSource: {
    1: ['secretName', 's'],
    2: ['items', 'KeyToPath', 'r'],
    3: ['defaultMode', 'i32', 'p'],
    4: ['optional', 'b', 'p'],
  },
  ConfigMapVolumeSource: {
    1: ['', 'LocalObjectReference', 'i'],
    2: ['items', 'KeyToPath', 'r'],
    3: ['defaultMode', 'i32', 'p'],
    4: ['optional', 'b', 'p'],
  },
  KeyToPath: { 1: ['key', 's'], 2: ['path', 's'], 3: ['mode', 'i32', 'p'] },
  Probe: {
    1: ['', 'ProbeHandler', 'i'],
    2: ['initialDelaySeconds', 'i32'],
    3: ['timeoutSeconds', 'i32'],
    4: ['periodSeconds', 'i32'],
    5: ['successThreshold', 'i32'],
    6: ['failureThreshold', 'i32'],
  },
  ProbeHandler: {
    1: ['exec', 'ExecAction'],
    2: ['httpGet', 'HTTPGetAction'],
    3: ['tcpSocket', 'TCPSocketAction'],
  },
  ExecAction: { 1: ['command', 's', 'r'] },
  HTTPGetAction: { 1: ['path', 's'], 2: ['port', 'ios'], 3: ['host', 's'], 4: ['scheme', 's'] },
  TCPSocketAction: { 1: ['port', 'ios'], 2: ['host', 's'] },
  Toleration: {
    1: ['key', 's'],
    2: ['operator', 's'],
    3: ['value', 's'],
    4: ['effect', 's'],
    5: ['tolerationSeconds', 'i64', 'p'],
  },
  SecurityContext: {
    2: ['privileged', 'b', 'p'],
    4: ['runAsUser', 'i64', 'p'],
    8: ['runAsGroup', 'i64', 'p'],
    5: ['runAsNonRoot', 'b', 'p'],
    6: ['readOnlyRootFilesystem', 'b', 'p'],
    7: ['allowPrivilegeEscalation', 'b', 'p'],
  },
  PodSecurityContext: {
    2: ['runAsUser', 'i64', 'p'],
    6: ['runAsGroup', 'i64', 'p'],
    3: ['runAsNonRoot', 'b', 'p'],
    4: ['supplementalGroups', 'i64', 'r'],
    5: ['fsGroup', 'i64', 'p'],
  },
  ResourceQuota: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'ResourceQuotaSpec'] },
  ResourceQuotaSpec: { 1: ['hard', 'mq'], 2: ['scopes', 's', 'r'] },
  Event: {
    1: ['metadata', 'ObjectMeta'],
    2: ['involvedObject', 'ObjectReference'],
    3: ['reason', 's'],
    4: ['message', 's'],
    5: ['source', 'EventSource'],
    6: ['firstTimestamp', 't'],
    7: ['lastTimestamp', 't'],
    8: ['count', 'i32'],
    9: ['type', 's'],
    10: ['eventTime', 'mt'],
    12: ['action', 's'],
    13: ['related', 'ObjectReference'],
    14: ['reportingComponent', 's'],
    15: ['reportingInstance', 's'],
  },
  EventSource: { 1: ['component', 's'], 2: ['host', 's'] },
};

const APPS: Record<string, Message> = {
  Deployment: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'DeploymentSpec'] },
  DeploymentSpec: {
    1: ['replicas', 'i32', 'p'],
    2: ['selector', 'LabelSelector'],
    3: ['template', 'PodTemplateSpec'],
    4: ['strategy', 'DeploymentStrategy'],
    5: ['minReadySeconds', 'i32'],
    6: ['revisionHistoryLimit', 'i32', 'p'],
    7: ['paused', 'b'],
    9: ['progressDeadlineSeconds', 'i32', 'p'],
  },
  DeploymentStrategy: { 1: ['type', 's'], 2: ['rollingUpdate', 'RollingUpdateDeployment'] },
  RollingUpdateDeployment: { 1: ['maxUnavailable', 'ios'], 2: ['maxSurge', 'ios'] },
  ReplicaSet: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'ReplicaSetSpec'] },
  ReplicaSetSpec: {
    1: ['replicas', 'i32', 'p'],
    4: ['minReadySeconds', 'i32'],
    2: ['selector', 'LabelSelector'],
    3: ['template', 'PodTemplateSpec'],
  },
  Lease: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'LeaseSpec'] },
  LeaseSpec: {
    1: ['holderIdentity', 's', 'p'],
    2: ['leaseDurationSeconds', 'i32', 'p'],
    3: ['acquireTime', 'mt'],
    4: ['renewTime', 'mt'],
    5: ['leaseTransitions', 'i32', 'p'],
  },
};

/**
 * The reviews of authentication.k8s.io/v1 and authorization.k8s.io/v1 (kubectl auth can-i and
 * whoami send them as protobuf). Status is the server's to fill, so only specs are described;
 * a SubjectAccessReview's `extra` (a map of ExtraValue) is skipped.
 */
const REVIEWS: Record<string, Message> = {
  TokenReview: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'TokenReviewSpec'] },
  TokenReviewSpec: { 1: ['token', 's'], 2: ['audiences', 's', 'r'] },
  SelfSubjectReview: { 1: ['metadata', 'ObjectMeta'] },
  SelfSubjectAccessReview: {
    1: ['metadata', 'ObjectMeta'],
    2: ['spec', 'SelfSubjectAccessReviewSpec'],
  },
  SelfSubjectAccessReviewSpec: {
    1: ['resourceAttributes', 'ResourceAttributes'],
    2: ['nonResourceAttributes', 'NonResourceAttributes'],
  },
  SubjectAccessReview: { 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'SubjectAccessReviewSpec'] },
  SubjectAccessReviewSpec: {
    1: ['resourceAttributes', 'ResourceAttributes'],
    2: ['nonResourceAttributes', 'NonResourceAttributes'],
    3: ['user', 's'],
    4: ['groups', 's', 'r'],
    6: ['uid', 's'],
  },
  ResourceAttributes: {
    1: ['namespace', 's'],
    2: ['verb', 's'],
    3: ['group', 's'],
    4: ['version', 's'],
    5: ['resource', 's'],
    6: ['subresource', 's'],
    7: ['name', 's'],
    8: ['fieldSelector', 'SelectorAttributes'],
    9: ['labelSelector', 'SelectorAttributes'],
  },
  // FieldSelectorAttributes and LabelSelectorAttributes have the same fields.
  SelectorAttributes: {
    1: ['rawSelector', 's'],
    2: ['requirements', 'LabelSelectorRequirement', 'r'],
  },
  NonResourceAttributes: { 1: ['path', 's'], 2: ['verb', 's'] },
  SelfSubjectRulesReview: {
    1: ['metadata', 'ObjectMeta'],
    2: ['spec', 'SelfSubjectRulesReviewSpec'],
  },
  SelfSubjectRulesReviewSpec: { 1: ['namespace', 's'] },
};

const MESSAGES: Record<string, Message> = { ...META, ...CORE, ...APPS, ...REVIEWS };

/** Top-level kinds that can be decoded, by `apiVersion/kind`. */
const TOP: Record<string, string> = {
  'v1/ConfigMap': 'ConfigMap',
  'v1/Secret': 'Secret',
  'v1/Namespace': 'Namespace',
  'v1/ServiceAccount': 'ServiceAccount',
  'v1/Service': 'Service',
  'v1/Pod': 'Pod',
  'v1/ResourceQuota': 'ResourceQuota',
  'v1/Event': 'Event',
  'apps/v1/Deployment': 'Deployment',
  'apps/v1/ReplicaSet': 'ReplicaSet',
  'coordination.k8s.io/v1/Lease': 'Lease',
  'authentication.k8s.io/v1/TokenReview': 'TokenReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'SelfSubjectReview',
  'authorization.k8s.io/v1/SubjectAccessReview': 'SubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'SelfSubjectAccessReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview': 'SubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'SelfSubjectRulesReview',
};

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
    }
  }
  bytes(): Uint8Array {
    const n = Number(this.varint());
    if (this.pos + n > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

const utf8 = new TextDecoder();

function toInt(v: bigint, bits: 32 | 64): number {
  return Number(BigInt.asIntN(bits, v));
}

function decodeTime(b: Uint8Array, micro: boolean): string | null {
  const r = new Reader(b);
  let seconds = 0;
  let nanos = 0;
  while (!r.done) {
    const tag = Number(r.varint());
    if (tag >> 3 === 1) seconds = toInt(r.varint(), 64);
    else if (tag >> 3 === 2) nanos = toInt(r.varint(), 32);
    else r.skip(tag & 7);
  }
  if (seconds === 0 && nanos === 0) return null;
  const iso = new Date(seconds * 1000).toISOString();
  return micro
    ? iso.replace(/\.\d{3}Z$/, `.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`)
    : iso.replace(/\.\d{3}Z$/, 'Z');
}

function decodeString1(b: Uint8Array): string {
  const r = new Reader(b);
  let s = '';
  while (!r.done) {
    const tag = Number(r.varint());
    if (tag >> 3 === 1 && (tag & 7) === 2) s = utf8.decode(r.bytes());
    else r.skip(tag & 7);
  }
  return s;
}

function decodeIntOrString(b: Uint8Array): number | string {
  const r = new Reader(b);
  let type = 0;
  let i = 0;
  let s = '';
  while (!r.done) {
    const tag = Number(r.varint());
    const f = tag >> 3;
    if (f === 1) type = toInt(r.varint(), 64);
    else if (f === 2) i = toInt(r.varint(), 32);
    else if (f === 3) s = utf8.decode(r.bytes());
    else r.skip(tag & 7);
  }
  return type === 1 ? s : i;
}

function decodeMapEntry(b: Uint8Array, valueType: string): [string, unknown] {
  const r = new Reader(b);
  let k = '';
  let v: unknown = valueType === 'ms' ? '' : '';
  while (!r.done) {
    const tag = Number(r.varint());
    const f = tag >> 3;
    if (f === 1) k = utf8.decode(r.bytes());
    else if (f === 2) {
      const raw = r.bytes();
      v =
        valueType === 'ms'
          ? utf8.decode(raw)
          : valueType === 'mb'
            ? Buffer.from(raw).toString('base64')
            : decodeString1(raw);
    } else r.skip(tag & 7);
  }
  return [k, v];
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false || v === null;
}

function decodeMessage(b: Uint8Array, name: string): Json {
  const desc = MESSAGES[name];
  const out: Json = {};
  const r = new Reader(b);
  while (!r.done) {
    const tag = Number(r.varint());
    const num = tag >> 3;
    const wire = tag & 7;
    const field = desc?.[num];
    if (!field) {
      r.skip(wire);
      continue;
    }
    const [key, type, flags = ''] = field;
    let value: unknown;
    switch (type) {
      case 's':
        value = utf8.decode(r.bytes());
        break;
      case 'b':
        value = r.varint() !== 0n;
        break;
      case 'i32':
        if (wire === 2) {
          // packed repeated
          const pr = new Reader(r.bytes());
          const arr: number[] = [];
          while (!pr.done) arr.push(toInt(pr.varint(), 32));
          out[key] = [...((out[key] as number[]) ?? []), ...arr];
          continue;
        }
        value = toInt(r.varint(), 32);
        break;
      case 'i64':
        if (wire === 2) {
          const pr = new Reader(r.bytes());
          const arr: number[] = [];
          while (!pr.done) arr.push(toInt(pr.varint(), 64));
          out[key] = [...((out[key] as number[]) ?? []), ...arr];
          continue;
        }
        value = toInt(r.varint(), 64);
        break;
      case 'by':
        value = Buffer.from(r.bytes()).toString('base64');
        break;
      case 't':
        value = decodeTime(r.bytes(), false);
        break;
      case 'mt':
        value = decodeTime(r.bytes(), true);
        break;
      case 'q':
        value = decodeString1(r.bytes());
        break;
      case 'ios':
        value = decodeIntOrString(r.bytes());
        break;
      case 'f1': {
        const raw = decodeRawBytes(r.bytes());
        try {
          value = JSON.parse(utf8.decode(raw));
        } catch {
          value = {};
        }
        break;
      }
      case 'ms':
      case 'mb':
      case 'mq': {
        const [k, v] = decodeMapEntry(r.bytes(), type);
        const m = (out[key] as Json | undefined) ?? {};
        m[k] = v;
        out[key] = m;
        continue;
      }
      default:
        value = decodeMessage(r.bytes(), type);
    }
    if (flags.includes('i') && typeof value === 'object' && value !== null) {
      Object.assign(out, value);
      continue;
    }
    if (flags.includes('r')) {
      if (!Array.isArray(out[key])) out[key] = [];
      (out[key] as unknown[]).push(value);
      continue;
    }
    // Non-pointer scalars are always on the wire; their zero value means "unset" in JSON.
    if (!flags.includes('p') && isZero(value)) continue;
    out[key] = value;
  }
  return out;
}

function decodeRawBytes(b: Uint8Array): Uint8Array {
  // FieldsV1 { bytes Raw = 1 }
  const r = new Reader(b);
  let raw: Uint8Array = new Uint8Array();
  while (!r.done) {
    const tag = Number(r.varint());
    if (tag >> 3 === 1) raw = r.bytes();
    else r.skip(tag & 7);
  }
  return raw;
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** Decodes a protobuf request body into the object's JSON form, or throws 400/415. */
export function decodeProtobufObject(body: Uint8Array): Json {
  if (body.length < 4 || MAGIC.some((m, i) => body[i] !== m))
    throw newBadRequest(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array();
  try {
    const r = new Reader(body.subarray(4));
    while (!r.done) {
      const tag = Number(r.varint());
      const f = tag >> 3;
      if (f === 1) {
        const tr = new Reader(r.bytes());
        while (!tr.done) {
          const t2 = Number(tr.varint());
          if (t2 >> 3 === 1) apiVersion = utf8.decode(tr.bytes());
          else if (t2 >> 3 === 2) kind = utf8.decode(tr.bytes());
          else tr.skip(t2 & 7);
        }
      } else if (f === 2) raw = r.bytes();
      else r.skip(tag & 7);
    }
  } catch (err) {
    throw newBadRequest(
      `unable to decode protobuf body: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const msg = TOP[`${apiVersion}/${kind}`];
  if (!msg)
    throw newUnsupportedMediaType(
      `application/vnd.kubernetes.protobuf (for ${apiVersion}/${kind})`,
    );
  try {
    return { apiVersion, kind, ...decodeMessage(raw, msg) };
  } catch (err) {
    throw newBadRequest(
      `unable to decode ${kind} protobuf: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
