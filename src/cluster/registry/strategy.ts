/**
 * Per-kind REST strategies, as each registry's strategy.go: how a kind is prepared on create and
 * update (status reset, generation), defaulted, and validated. Kinds without a special strategy
 * get the generic one.
 */
import type { FieldError } from '../apimachinery/errors';
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../apimachinery/errors';
import type { NameRule } from '../apimachinery/names';
import {
  isQualifiedName,
  nameRuleOf,
  validateAnnotations,
  validateLabels,
  validateName,
  validateNamePrefix,
} from '../apimachinery/names';
import { deepEqual, isObject } from '../apimachinery/patch';
import { hasGeneration } from '../api/generation';
import { allowsUnconditionalUpdate } from '../api/updatepolicy';
import { validateControllerRevision } from './appsvalidation';
import { validateRuntimeClass, validateStorageClass } from './classvalidation';
import { validateIngress, validateIngressClass } from './networkingvalidation';
import { validateEndpointSlice } from './discoveryvalidation';
import { validateHorizontalPodAutoscaler } from './autoscalingvalidation';
import { validateEvent } from './eventvalidation';
import { preparePersistentVolumeForUpdate, validatePersistentVolume } from './pvvalidation';
import { validateValidatingAdmissionPolicy } from './admissionpolicyvalidation';
import {
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
} from './mutatingpolicyvalidation';
import { validateFlowSchema } from './flowcontrolvalidation';
import { validatePersistentVolumeClaim } from './pvcvalidation';
import { validateRoleBinding } from './rbacvalidation';
import type { ResourceType } from './registry';
import { matchesLabels, fromLabelSelector } from '../apimachinery/selector';
import type { KubeObject } from '../apimachinery/types';
import { validateCrd } from '../apiextensions/crd';
import { parseQuantity } from '../apimachinery/quantity';
import { validateService } from './serviceallocation';
import { validateConfigMap, validateSecret } from './configvalidation';
import { prepareDisruptionBudgetForCreate, validateDisruptionBudget } from './poddisruptionbudget';
import {
  cronJobTemplateMetadata,
  prepareJobForCreate,
  validateCronJob,
  validateJobTemplate,
  validateJobSelector,
  validateJobSpecUpdate,
} from './job';
import { prepareCsrForCreate, prepareCsrForUpdate, validateCsr } from './certificatesigningrequest';
import type { UserInfo } from '../auth/user';
import { rec, ensure, setDefault } from '../apimachinery/unstructured';
import { applyDefaults } from '../api/defaulting';
import { marshalIndentInternalPodSpec } from '../api/internaljson';
import { splitLines, unifiedDiff } from '../../util/difflib';
import { goShape } from '../api/goshape';

type Obj = Record<string, unknown>;

export interface Strategy {
  nameRule: NameRule;
  hasGeneration: boolean;
  allowUnconditionalUpdate: boolean;
  /**
   * Resets what a create may not set (status behind a status subresource, ...); `user`: who asks,
   * when the request has a user (the HTTP layer's); `now` for the times it stamps.
   */
  prepareForCreate?(obj: KubeObject, user: UserInfo | undefined, now: string): void;
  /**
   * The update strategy of `subresource` ('' for the main resource), where a kind's differs from
   * putting back its reset fields: what it keeps of `old`; `now` for the times it stamps.
   */
  prepareForUpdate?(next: KubeObject, old: KubeObject, subresource: string, now: string): void;
  /**
   * What the server derives from `old` once the update is defaulted (main resource only): a
   * DaemonSet's template generation, bumped when its template changes.
   */
  finishUpdate?(obj: KubeObject, old: KubeObject): void;
  /**
   * DefaultGarbageCollectionPolicy: OrphanDependents for the kinds whose served version keeps the
   * old default (core/v1 ReplicationControllers, batch/v1 Jobs): a delete that names no policy
   * orphans their dependents.
   */
  orphansByDefault?: boolean;
  /** Defaults (and, for custom resources, prunes) in place; returns the paths of unknown fields dropped. */
  defaults?(obj: KubeObject): string[] | void;
  validate?(obj: KubeObject, old?: KubeObject, subresource?: string): FieldError[];
}

function validatePodSpec(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const cs = spec.containers;
  if (!Array.isArray(cs) || cs.length === 0) {
    errs.push(fieldRequired(`${path}.containers`));
    return errs;
  }
  const names = new Set<string>();
  cs.forEach((c, i) => {
    const p = `${path}.containers[${i}]`;
    const co = rec(c);
    if (typeof co.name !== 'string' || !co.name) errs.push(fieldRequired(`${p}.name`));
    else {
      for (const m of validateName(co.name, 'label'))
        errs.push(fieldInvalid(`${p}.name`, co.name, m));
      if (names.has(co.name))
        errs.push({
          type: 'FieldValueDuplicate',
          field: `${p}.name`,
          message: `Duplicate value: "${co.name}"`,
        });
      names.add(co.name);
    }
    if (typeof co.image !== 'string' || !co.image) errs.push(fieldRequired(`${p}.image`));
    const res = rec(co.resources);
    for (const kind of ['requests', 'limits']) {
      for (const [r, q] of Object.entries(rec(res[kind]))) {
        if (parseQuantity(q) === undefined) {
          errs.push(
            fieldInvalid(
              `${p}.resources.${kind}[${r}]`,
              q,
              "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
            ),
          );
        }
      }
    }
  });
  return errs;
}

/**
 * How each workload's validation treats its selector (pkg/apis/apps/validation): Deployments,
 * ReplicaSets and StatefulSets require one, DaemonSets check the template's labels first; each
 * names itself in the empty-selector message (a ReplicaSet says "deployment", as upstream does).
 */
const WORKLOAD_SELECTORS: Record<string, { required: boolean; empty: string }> = {
  Deployment: { required: true, empty: 'deployment' },
  ReplicaSet: { required: true, empty: 'deployment' },
  StatefulSet: { required: true, empty: 'statefulset' },
  DaemonSet: { required: false, empty: 'daemonset' },
};

function validateSelectorAndTemplate(
  obj: KubeObject,
  kind: keyof typeof WORKLOAD_SELECTORS,
  old?: KubeObject,
): FieldError[] {
  const rules = WORKLOAD_SELECTORS[kind];
  const errs: FieldError[] = [];
  const spec = rec(obj.spec);
  if (typeof spec.replicas === 'number' && spec.replicas < 0) {
    errs.push(fieldInvalid('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  }
  const sel = spec.selector;
  const empty =
    isObject(sel) &&
    Object.keys(rec(sel.matchLabels)).length === 0 &&
    !(Array.isArray(sel.matchExpressions) && sel.matchExpressions.length);
  const emptyError = () =>
    fieldInvalid('spec.selector', sel, `empty selector is invalid for ${rules.empty}`);
  if (rules.required) {
    if (!isObject(sel)) errs.push(fieldRequired('spec.selector'));
    else if (empty) errs.push(emptyError());
  }
  // LabelSelectorAsSelector: no selector selects nothing (so no template matches it), an empty
  // one everything.
  const tmpl = rec(spec.template);
  const templateLabels = rec(tmpl.metadata).labels;
  const labels = rec(templateLabels) as Record<string, string>;
  const req = fromLabelSelector(sel);
  if (!isObject(sel) || (req && req.length && !matchesLabels(req, labels))) {
    errs.push(
      fieldInvalid(
        'spec.template.metadata.labels',
        isObject(templateLabels) ? templateLabels : null,
        '`selector` does not match template `labels`',
      ),
    );
  }
  if (!rules.required && empty) errs.push(emptyError());
  errs.push(...validatePodSpec(rec(tmpl.spec), 'spec.template.spec'));
  if (old && !deepEqual(rec(old.spec).selector, sel)) {
    errs.push(fieldInvalid('spec.selector', sel, 'field is immutable'));
  }
  return errs;
}

/**
 * ValidateReplicationControllerSpec: a selector that selects something (map-based, defaulted
 * from the template's labels), and a template whose labels it matches, whose pods always
 * restart and have no deadline.
 */
function validateReplicationController(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(obj.spec);
  if (typeof spec.minReadySeconds === 'number' && spec.minReadySeconds < 0)
    errs.push(
      fieldInvalid(
        'spec.minReadySeconds',
        spec.minReadySeconds,
        'must be greater than or equal to 0',
      ),
    );
  const selector = rec(spec.selector) as Record<string, string>;
  if (!Object.keys(selector).length) errs.push(fieldRequired('spec.selector'));
  if (typeof spec.replicas === 'number' && spec.replicas < 0)
    errs.push(fieldInvalid('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  if (!isObject(spec.template)) {
    errs.push(fieldRequired('spec.template'));
    return errs;
  }
  const labels = rec(rec(spec.template.metadata).labels) as Record<string, string>;
  const required = fromLabelSelector({ matchLabels: selector });
  if (required?.length && !matchesLabels(required, labels))
    errs.push(
      fieldInvalid(
        'spec.template.metadata.labels',
        rec(spec.template.metadata).labels ?? null,
        '`selector` does not match template `labels`',
      ),
    );
  const podSpec = rec(spec.template.spec);
  errs.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  if ((podSpec.restartPolicy ?? 'Always') !== 'Always')
    errs.push(
      fieldNotSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy, ['Always']),
    );
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null)
    errs.push(
      fieldForbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in ReplicationController is not Supported',
      ),
    );
  return errs;
}

let serviceIp = 10;

/**
 * The Service REST's initIPFamilyFields on a single-stack IPv4 cluster (kube-apiserver's default
 * range): an ExternalName service gets no families; a headless one without a selector is
 * RequireDualStack with both families (it allocates nothing, so the cluster's stacks do not
 * limit it); any other is SingleStack IPv4. `clusterIPs` follows a lone `clusterIP`
 * (normalizeClusterIPs).
 */
function initIPFamilyFields(spec: Obj): void {
  if (spec.type === 'ExternalName') return;
  if (typeof spec.clusterIP === 'string' && spec.clusterIP && !Array.isArray(spec.clusterIPs))
    spec.clusterIPs = [spec.clusterIP];
  const headlessSelectorless =
    spec.clusterIP === 'None' && (!isObject(spec.selector) || !Object.keys(spec.selector).length);
  setDefault(spec, 'ipFamilyPolicy', headlessSelectorless ? 'RequireDualStack' : 'SingleStack');
  setDefault(spec, 'ipFamilies', ['IPv4']);
  const families = spec.ipFamilies as string[];
  if (headlessSelectorless && spec.ipFamilyPolicy !== 'SingleStack' && families.length === 1)
    spec.ipFamilies = [...families, families[0] === 'IPv4' ? 'IPv6' : 'IPv4'];
}

const STRATEGIES: Record<string, Partial<Strategy>> = {
  '/Namespace': {
    prepareForCreate(obj) {
      obj.spec = { finalizers: ['kubernetes'] };
      obj.status = { phase: 'Active' };
    },
  },
  '/Service': {
    prepareForCreate(obj) {
      obj.status = { loadBalancer: {} };
      // The Service REST allocates after the create handler recorded the writer's fields, so
      // nobody manages what it sets.
      const spec = ensure(obj as Obj, 'spec');
      if (spec.clusterIP === undefined && spec.type !== 'ExternalName') {
        const n = serviceIp++;
        spec.clusterIP = `10.96.${(n >> 8) & 255}.${n & 255}`;
        spec.clusterIPs = [spec.clusterIP];
      }
      initIPFamilyFields(spec);
    },
    validate: (obj, old) => validateService(obj, old),
  },
  'policy/PodDisruptionBudget': {
    prepareForCreate: prepareDisruptionBudgetForCreate,
    validate: validateDisruptionBudget,
  },
  '/ConfigMap': {
    validate: (obj, old) => validateConfigMap(obj, old),
  },
  '/Secret': {
    validate: (obj, old) => validateSecret(obj, old),
    defaults(obj) {
      const o = obj as Obj;
      // stringData is write-only: merged into data, base64-encoded, never stored.
      if (isObject(o.stringData)) {
        const data = ensure(o, 'data');
        for (const [k, v] of Object.entries(o.stringData))
          data[k] = Buffer.from(String(v)).toString('base64');
        delete o.stringData;
      }
    },
  },
  '/Pod': {
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending', qosClass: qosClass(rec(obj.spec)) };
    },
    validate(obj, old) {
      const errs = validatePodSpec(rec(obj.spec), 'spec');
      if (old) {
        const a = rec(obj.spec);
        const b = rec(old.spec);
        const strip = (s: Obj) => {
          const c = structuredClone(s);
          delete c.activeDeadlineSeconds;
          delete c.tolerations;
          delete c.nodeName;
          if (Array.isArray(c.containers))
            for (const x of c.containers) if (isObject(x)) delete x.image;
          return c;
        };
        if (!deepEqual(strip(a), strip(b))) {
          errs.push(
            fieldForbidden(
              'spec',
              'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n' +
                podSpecDiff(b, mungedPodSpec(a, b)),
            ),
          );
        }
      }
      return errs;
    },
  },
  'apps/Deployment': {
    prepareForCreate(obj) {
      obj.status = {};
    },
    validate: (obj, old) => validateSelectorAndTemplate(obj, 'Deployment', old),
  },
  'apps/ReplicaSet': {
    prepareForCreate(obj) {
      obj.status = { replicas: 0 };
    },
    validate: (obj, old) => validateSelectorAndTemplate(obj, 'ReplicaSet', old),
  },
  'apps/StatefulSet': {
    hasGeneration: true,
    defaults(obj) {
      // Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec writes every claim template's
      // apiVersion and kind (as reflective conversion did before 1.17, issue 87583).
      const templates = rec(obj.spec).volumeClaimTemplates;
      if (Array.isArray(templates))
        for (const c of templates)
          if (isObject(c)) {
            c.apiVersion = 'v1';
            c.kind = 'PersistentVolumeClaim';
          }
    },
    prepareForCreate(obj) {
      // An empty StatefulSetStatus: replicas and availableReplicas are not omitempty.
      obj.status = { replicas: 0, availableReplicas: 0 };
    },
    validate: (obj, old) => validateSelectorAndTemplate(obj, 'StatefulSet', old),
  },
  'apps/DaemonSet': {
    hasGeneration: true,
    prepareForCreate(obj) {
      obj.status = {
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 0,
        numberReady: 0,
      };
      // Spec.TemplateGeneration = 1, which apps/v1 carries as this annotation.
      obj.metadata.annotations = {
        ...(obj.metadata.annotations ?? {}),
        'deprecated.daemonset.template.generation': '1',
      };
    },
    defaults(obj) {
      // Spec.TemplateGeneration travels as this annotation in apps/v1: the conversion to the
      // internal type and back writes it ("0" before PrepareForCreate sets 1), so the field
      // manager sees it on every write and the writer owns it.
      obj.metadata.annotations = {
        ...(obj.metadata.annotations ?? {}),
        'deprecated.daemonset.template.generation':
          obj.metadata.annotations?.['deprecated.daemonset.template.generation'] ?? '0',
      };
    },
    finishUpdate(obj, old) {
      // Spec.TemplateGeneration (this annotation in apps/v1) is the server's: kept, and bumped
      // when the pod template changes.
      const key = 'deprecated.daemonset.template.generation';
      const was = old.metadata.annotations?.[key];
      const changed = !deepEqual(rec(obj.spec).template, rec(old.spec).template);
      const next = changed ? String(Number(was ?? 0) + 1) : was;
      const annotations = { ...(obj.metadata.annotations ?? {}) };
      if (next === undefined) delete annotations[key];
      else annotations[key] = next;
      obj.metadata.annotations = annotations;
    },
    validate: (obj, old) => validateSelectorAndTemplate(obj, 'DaemonSet', old),
  },
  'apps/ControllerRevision': {
    validate: (obj, old) => validateControllerRevision(obj, old),
  },
  'rbac.authorization.k8s.io/RoleBinding': {
    validate: (obj) => validateRoleBinding(obj, false),
  },
  'rbac.authorization.k8s.io/ClusterRoleBinding': {
    validate: (obj) => validateRoleBinding(obj, true),
  },
  'networking.k8s.io/Ingress': {
    validate: (obj, old) => validateIngress(obj, old),
  },
  'networking.k8s.io/IngressClass': {
    validate: (obj, old) => validateIngressClass(obj, old),
  },
  'autoscaling/HorizontalPodAutoscaler': {
    validate: (obj, old, subresource) =>
      subresource === 'status' ? [] : validateHorizontalPodAutoscaler(obj, old),
  },
  '/Event': {
    validate: (obj, old) => validateEvent(obj, old, 'v1'),
  },
  'events.k8s.io/Event': {
    validate: (obj, old) => validateEvent(obj, old, 'events.k8s.io/v1'),
  },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': {
    validate: (obj, _old, subresource) =>
      subresource === 'status' ? [] : validateValidatingAdmissionPolicy(obj),
  },
  'admissionregistration.k8s.io/MutatingAdmissionPolicy': {
    validate: (obj) => validateMutatingAdmissionPolicy(obj),
  },
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding': {
    validate: (obj) => validateMutatingAdmissionPolicyBinding(obj),
  },
  'node.k8s.io/RuntimeClass': {
    validate: (obj) => validateRuntimeClass(obj),
  },
  'storage.k8s.io/StorageClass': {
    validate: (obj) => validateStorageClass(obj),
  },
  'flowcontrol.apiserver.k8s.io/FlowSchema': {
    validate: (obj) => validateFlowSchema(obj),
  },
  'discovery.k8s.io/EndpointSlice': {
    // endpointSliceStrategy: generation 1 on create, bumped when anything but metadata changes.
    hasGeneration: true,
    validate: (obj, old) => validateEndpointSlice(obj, old),
  },
  '/PersistentVolume': {
    // persistentvolumeStrategy.PrepareForCreate: Pending, since now (the phase transition time
    // is GA in 1.36).
    prepareForCreate(obj, _user, now) {
      obj.status = { phase: 'Pending', lastPhaseTransitionTime: now };
    },
    validate: (obj, _old, subresource) =>
      subresource === 'status' ? [] : validatePersistentVolume(obj),
    prepareForUpdate: preparePersistentVolumeForUpdate,
  },
  '/PersistentVolumeClaim': {
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending' };
    },
    validate: (obj) => validatePersistentVolumeClaim(obj),
  },
  '/ReplicationController': {
    orphansByDefault: true,
    validate: (obj) => validateReplicationController(obj),
  },
  'batch/Job': {
    hasGeneration: true,
    orphansByDefault: true,
    prepareForCreate: prepareJobForCreate,
    // jobStrategy.ValidateUpdate is ValidateJob and ValidateJobUpdate, both with ValidateJobSpec:
    // an update's spec errors are listed twice (the message says each once).
    validate(obj, old, subresource) {
      const spec = rec(obj.spec);
      const specErrs = [
        ...validatePodSpec(rec(rec(spec.template).spec), 'spec.template.spec'),
        ...validateJobTemplate(spec, 'spec'),
        ...validateJobSelector(spec, 'spec'),
      ];
      if (!old || subresource) return specErrs;
      return [...specErrs, ...specErrs, ...validateJobSpecUpdate(spec, rec(old.spec))];
    },
  },
  'batch/CronJob': {
    hasGeneration: true,
    prepareForCreate(obj) {
      obj.status = {};
    },
    defaults: cronJobTemplateMetadata,
    validate(obj, old) {
      const jobSpec = rec(rec(rec(obj.spec).jobTemplate).spec);
      return [
        ...validateCronJob(obj, old),
        ...validatePodSpec(rec(rec(jobSpec.template).spec), 'spec.jobTemplate.spec.template.spec'),
        ...validateJobTemplate(jobSpec, 'spec.jobTemplate.spec'),
      ];
    },
  },
  '/ResourceQuota': {
    // The status is a struct held by value: reset, it is still written (`status: {}`).
    prepareForCreate(obj) {
      obj.status = {};
    },
    validate(obj) {
      const errs: FieldError[] = [];
      for (const [r, q] of Object.entries(rec(rec(obj.spec).hard))) {
        if (parseQuantity(q) === undefined) {
          errs.push(
            fieldInvalid(
              `spec.hard[${r}]`,
              q,
              "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
            ),
          );
        }
      }
      return errs;
    },
  },
  'certificates.k8s.io/CertificateSigningRequest': {
    prepareForCreate: prepareCsrForCreate,
    prepareForUpdate: prepareCsrForUpdate,
    validate: validateCsr,
  },
  'apiextensions.k8s.io/CustomResourceDefinition': {
    prepareForCreate(obj) {
      delete obj.status;
    },
    validate: (obj, old) => validateCrd(obj, old),
  },
};

function qosClass(spec: Obj): string {
  const cs = Array.isArray(spec.containers) ? spec.containers : [];
  let anySet = false;
  let guaranteed = cs.length > 0;
  for (const c of cs) {
    const res = rec(rec(c).resources);
    const req = rec(res.requests);
    const lim = rec(res.limits);
    if (Object.keys(req).length || Object.keys(lim).length) anySet = true;
    for (const r of ['cpu', 'memory']) {
      if (lim[r] === undefined) guaranteed = false;
      else if (req[r] !== undefined && parseQuantity(req[r]) !== parseQuantity(lim[r]))
        guaranteed = false;
    }
  }
  if (guaranteed && anySet) return 'Guaranteed';
  return anySet ? 'Burstable' : 'BestEffort';
}

const GENERIC: Omit<Strategy, 'hasGeneration'> = {
  nameRule: 'subdomain',
  allowUnconditionalUpdate: true,
};

export function strategyFor(t: ResourceType): Strategy {
  if (t.crd) {
    const schema = t.schema;
    return {
      nameRule: 'subdomain',
      hasGeneration: true,
      allowUnconditionalUpdate: false,
      prepareForCreate(obj) {
        if (t.statusSubresource) delete obj.status;
      },
      defaults(obj) {
        if (!schema) return [];
        const unknown = schema.prune(obj as Obj);
        schema.default(obj as Obj);
        return unknown;
      },

      validate(obj, old) {
        return schema ? schema.validate(obj as Obj, old as Obj | undefined) : [];
      },
    };
  }
  let st = builtinStrategies.get(t);
  if (!st) builtinStrategies.set(t, (st = builtinStrategy(t)));
  return st;
}

/**
 * A built-in kind's strategy, made once per type: it depends on the group and kind only, and
 * every create, update and delete asks for it.
 */
const builtinStrategies = new WeakMap<ResourceType, Strategy>();

function builtinStrategy(t: ResourceType): Strategy {
  const key = `${t.info.group}/${t.info.kind}`;
  const own = STRATEGIES[key] ?? {};
  return {
    ...GENERIC,
    nameRule: nameRuleOf(t.info.group, t.info.kind),
    hasGeneration: hasGeneration(t.info.group, t.info.kind),
    allowUnconditionalUpdate: allowsUnconditionalUpdate(t.info.group, t.info.kind),
    ...own,
    // Decoded into the Go type, defaulted by the scheme's defaulters of the request's version
    // (generated), then what the kind adds.
    // The object is in its stored version by now (an events.k8s.io Event is a core one).
    defaults(obj) {
      const apiVersion = String(obj.apiVersion ?? t.apiVersion);
      const kind = String(obj.kind ?? t.info.kind);
      applyDefaults(obj as Obj, apiVersion, kind);
      goShape(obj as Obj, apiVersion, kind);
      return own.defaults?.(obj);
    },
  };
}

/**
 * ValidatePodUpdate's mungedPodSpec: the new spec with what an update may change set back to the
 * old spec's (each container's image, activeDeadlineSeconds, schedulingGates, tolerations, a
 * terminationGracePeriodSeconds of 1 that was negative).
 */
function mungedPodSpec(now: Obj, old: Obj): Obj {
  const m = structuredClone(now);
  for (const key of ['containers', 'initContainers']) {
    const was = Array.isArray(old[key]) ? (old[key] as Obj[]) : [];
    if (Array.isArray(m[key]))
      (m[key] as Obj[]).forEach((c, i) => {
        if (isObject(c) && isObject(was[i])) c.image = was[i].image;
      });
  }
  for (const key of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations']) {
    if (old[key] === undefined) delete m[key];
    else m[key] = structuredClone(old[key]);
  }
  const grace = old.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0 && m.terminationGracePeriodSeconds === 1)
    m.terminationGracePeriodSeconds = grace;
  return m;
}

/** diff.Diff(oldPod.Spec, mungedPodSpec): the internal PodSpecs as indented JSON, unified diff. */
function podSpecDiff(old: Obj, munged: Obj): string {
  return unifiedDiff(
    splitLines(marshalIndentInternalPodSpec(old)),
    splitLines(marshalIndentInternalPodSpec(munged)),
    3,
  );
}

/** The finalizers kube-apiserver knows without a domain. */
const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

/**
 * ObjectMeta validation shared by every kind; `kubeFinalizers` adds kube's rule for finalizer
 * names (built-in kinds; custom resources get apimachinery's alone).
 */
export function validateObjectMeta(
  obj: KubeObject,
  rule: NameRule,
  kubeFinalizers = true,
): FieldError[] {
  const errs: FieldError[] = [];
  const md = obj.metadata;
  // ValidateObjectMetaAccessor's order: generateName, name, labels, annotations, owner
  // references, finalizers.
  if (md.generateName)
    for (const m of validateNamePrefix(md.generateName, rule))
      errs.push(fieldInvalid('metadata.generateName', md.generateName, m));
  if (md.name)
    for (const m of validateName(md.name, rule))
      errs.push(fieldInvalid('metadata.name', md.name, m));
  errs.push(...validateLabels(md.labels));
  errs.push(...validateAnnotations(md.annotations));
  errs.push(...validateOwnerReferences(md));
  // ValidateFinalizers: each name a qualified name; a built-in's (kube's ValidateFinalizerName,
  // not a custom resource's) one of the standard names or domain-qualified.
  (md.finalizers ?? []).forEach((f, i) => {
    const field = `metadata.finalizers[${i}]`;
    const name = typeof f === 'string' ? f : '';
    for (const msg of isQualifiedName(name)) errs.push(fieldInvalid(field, name, msg));
    if (kubeFinalizers && !name.includes('/') && !STANDARD_FINALIZERS.includes(name))
      errs.push(
        fieldInvalid(
          field,
          name,
          'name is neither a standard finalizer name nor is it fully qualified',
        ),
      );
  });
  return errs;
}

/** ValidateOwnerReferences: each reference whole, and at most one controller. */
function validateOwnerReferences(md: KubeObject['metadata']): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, o] of (md.ownerReferences ?? []).entries()) {
    if (!o.apiVersion)
      errs.push(
        fieldInvalid(
          `metadata.ownerReferences[${i}].apiVersion`,
          o.apiVersion ?? '',
          'version must not be empty',
        ),
      );
    if (!o.kind)
      errs.push(
        fieldInvalid(`metadata.ownerReferences[${i}].kind`, o.kind ?? '', 'kind must not be empty'),
      );
    if (!o.name)
      errs.push(
        fieldInvalid(`metadata.ownerReferences[${i}].name`, o.name ?? '', 'name must not be empty'),
      );
    if (!o.uid)
      errs.push(
        fieldInvalid(`metadata.ownerReferences[${i}].uid`, o.uid ?? '', 'uid must not be empty'),
      );
  }
  if ((md.ownerReferences ?? []).filter((o) => o.controller).length > 1) {
    errs.push(
      fieldInvalid(
        'metadata.ownerReferences',
        md.ownerReferences,
        'Only one reference can have Controller set to true',
      ),
    );
  }
  return errs;
}
