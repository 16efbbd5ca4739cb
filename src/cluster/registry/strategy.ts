/**
 * Per-kind REST strategies, as each registry's strategy.go: how a kind is prepared on create and
 * update (status reset, generation), defaulted, and validated. Kinds without a special strategy
 * get the generic one.
 */
import type { FieldError } from '../apimachinery/errors';
import { fieldForbidden, fieldInvalid, fieldRequired } from '../apimachinery/errors';
import type { NameRule } from '../apimachinery/names';
import { nameRuleOf, validateLabels, validateName } from '../apimachinery/names';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { ResourceType } from './registry';
import { matchesLabels, fromLabelSelector } from '../apimachinery/selector';
import type { KubeObject } from '../apimachinery/types';
import { validateCrd } from '../apiextensions/crd';
import { parseQuantity } from '../apimachinery/quantity';
import { validateService } from './serviceallocation';
import { validateConfigMap, validateSecret } from './configvalidation';
import { prepareDisruptionBudgetForCreate, validateDisruptionBudget } from './poddisruptionbudget';
import {
  defaultCronJob,
  defaultJob,
  prepareJobForCreate,
  validateCronJob,
  validateJobTemplate,
} from './job';
import { prepareCsrForCreate, prepareCsrForUpdate, validateCsr } from './certificatesigningrequest';
import type { UserInfo } from '../auth/user';

type Obj = Record<string, unknown>;

export interface Strategy {
  nameRule: NameRule;
  hasGeneration: boolean;
  allowUnconditionalUpdate: boolean;
  /**
   * Resets what a create may not set (status behind a status subresource, ...); `user`: who asks,
   * when the request has a user (the HTTP layer's).
   */
  prepareForCreate?(obj: KubeObject, user?: UserInfo): void;
  /**
   * The update strategy of `subresource` ('' for the main resource), where a kind's differs from
   * putting back its reset fields: what it keeps of `old`; `now` for the times it stamps.
   */
  prepareForUpdate?(next: KubeObject, old: KubeObject, subresource: string, now: string): void;
  /** Defaults (and, for custom resources, prunes) in place; returns the paths of unknown fields dropped. */
  defaults?(obj: KubeObject): string[] | void;
  validate?(obj: KubeObject, old?: KubeObject, subresource?: string): FieldError[];
}

function rec(v: unknown): Obj {
  return isObject(v) ? v : {};
}

function ensure(o: Obj, k: string): Obj {
  if (!isObject(o[k])) o[k] = {};
  return o[k] as Obj;
}

function setDefault(o: Obj, k: string, v: unknown): void {
  if (o[k] === undefined || o[k] === null) o[k] = v;
}

export function defaultPodSpec(spec: Obj): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isObject(c)) continue;
      const image = typeof c.image === 'string' ? c.image : '';
      const tagged = /:[^/]+$/.test(image) || image.includes('@');
      setDefault(
        c,
        'imagePullPolicy',
        !tagged || image.endsWith(':latest') ? 'Always' : 'IfNotPresent',
      );
      setDefault(c, 'terminationMessagePath', '/dev/termination-log');
      setDefault(c, 'terminationMessagePolicy', 'File');
      setDefault(c, 'resources', {});
      if (Array.isArray(c.ports))
        for (const p of c.ports) if (isObject(p)) setDefault(p, 'protocol', 'TCP');
    }
  }
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

function validateSelectorAndTemplate(
  obj: KubeObject,
  kind: string,
  old?: KubeObject,
): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(obj.spec);
  if (typeof spec.replicas === 'number' && spec.replicas < 0) {
    errs.push(fieldInvalid('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  }
  const sel = spec.selector;
  if (!isObject(sel)) {
    errs.push(fieldRequired('spec.selector'));
  } else if (
    Object.keys(rec(sel.matchLabels)).length === 0 &&
    !(Array.isArray(sel.matchExpressions) && sel.matchExpressions.length)
  ) {
    errs.push(fieldInvalid('spec.selector', sel, 'empty selector is invalid for deployment'));
  }
  const tmpl = rec(spec.template);
  const labels = rec(rec(tmpl.metadata).labels) as Record<string, string>;
  const req = fromLabelSelector(sel);
  if (req && req.length && !matchesLabels(req, labels)) {
    errs.push(
      fieldInvalid(
        'spec.template.metadata.labels',
        labels,
        '`selector` does not match template `labels`',
      ),
    );
  }
  errs.push(...validatePodSpec(rec(tmpl.spec), 'spec.template.spec'));
  if (old && !deepEqual(rec(old.spec).selector, sel)) {
    errs.push(fieldInvalid('spec.selector', sel, 'field is immutable'));
  }
  void kind;
  return errs;
}

function defaultWorkload(obj: KubeObject, deployment: boolean): void {
  const spec = ensure(obj as Obj, 'spec');
  setDefault(spec, 'replicas', 1);
  if (deployment) {
    const strategy = ensure(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const ru = ensure(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', '25%');
      setDefault(ru, 'maxSurge', '25%');
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
  }
  const tmpl = ensure(spec, 'template');
  ensure(tmpl, 'metadata');
  defaultPodSpec(ensure(tmpl, 'spec'));
}

let serviceIp = 10;

const STRATEGIES: Record<string, Partial<Strategy>> = {
  '/Namespace': {
    prepareForCreate(obj) {
      obj.spec = { finalizers: ['kubernetes'] };
      obj.status = { phase: 'Active' };
    },
    defaults(obj) {
      const md = obj.metadata;
      md.labels = { ...(md.labels ?? {}), 'kubernetes.io/metadata.name': md.name ?? '' };
    },
  },
  '/Service': {
    prepareForCreate(obj) {
      obj.status = { loadBalancer: {} };
    },
    validate: (obj, old) => validateService(obj, old),
    defaults(obj) {
      const spec = ensure(obj as Obj, 'spec');
      setDefault(spec, 'type', 'ClusterIP');
      setDefault(spec, 'sessionAffinity', 'None');
      if (spec.clusterIP === undefined && spec.type !== 'ExternalName') {
        const n = serviceIp++;
        spec.clusterIP = `10.96.${(n >> 8) & 255}.${n & 255}`;
        spec.clusterIPs = [spec.clusterIP];
      }
      setDefault(spec, 'ipFamilies', ['IPv4']);
      setDefault(spec, 'ipFamilyPolicy', 'SingleStack');
      setDefault(spec, 'internalTrafficPolicy', 'Cluster');
      if (Array.isArray(spec.ports)) {
        for (const p of spec.ports) {
          if (!isObject(p)) continue;
          setDefault(p, 'protocol', 'TCP');
          setDefault(p, 'targetPort', p.port);
        }
      }
    },
  },
  'policy/PodDisruptionBudget': {
    hasGeneration: true,
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
      setDefault(o, 'type', 'Opaque');
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
    defaults(obj) {
      const spec = ensure(obj as Obj, 'spec');
      defaultPodSpec(spec);
      setDefault(spec, 'serviceAccountName', 'default');
      setDefault(spec, 'enableServiceLinks', true);
      setDefault(spec, 'priority', 0);
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
              'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
            ),
          );
        }
      }
      return errs;
    },
  },
  'apps/Deployment': {
    hasGeneration: true,
    prepareForCreate(obj) {
      obj.status = {};
    },
    defaults: (obj) => defaultWorkload(obj, true),
    validate: (obj, old) => validateSelectorAndTemplate(obj, 'Deployment', old),
  },
  'apps/ReplicaSet': {
    hasGeneration: true,
    prepareForCreate(obj) {
      obj.status = { replicas: 0 };
    },
    defaults: (obj) => defaultWorkload(obj, false),
    validate: (obj, old) => validateSelectorAndTemplate(obj, 'ReplicaSet', old),
  },
  'batch/Job': {
    hasGeneration: true,
    prepareForCreate: prepareJobForCreate,
    defaults(obj) {
      defaultJob(obj);
      defaultPodSpec(ensure(ensure(rec(obj.spec), 'template'), 'spec'));
    },
    validate: (obj) => [
      ...validatePodSpec(rec(rec(rec(obj.spec).template).spec), 'spec.template.spec'),
      ...validateJobTemplate(rec(obj.spec), 'spec'),
    ],
  },
  'batch/CronJob': {
    hasGeneration: true,
    prepareForCreate(obj) {
      obj.status = {};
    },
    defaults(obj) {
      defaultCronJob(obj);
      const jobSpec = ensure(ensure(rec(obj.spec), 'jobTemplate'), 'spec');
      defaultPodSpec(ensure(ensure(jobSpec, 'template'), 'spec'));
    },
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
    prepareForCreate(obj) {
      delete obj.status;
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
    hasGeneration: true,
    allowUnconditionalUpdate: false,
    prepareForCreate(obj) {
      delete obj.status;
      const f = obj.metadata.finalizers ?? [];
      if (!f.includes('customresourcecleanup.apiextensions.k8s.io'))
        obj.metadata.finalizers = [...f, 'customresourcecleanup.apiextensions.k8s.io'];
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

const GENERIC: Strategy = {
  nameRule: 'subdomain',
  hasGeneration: false,
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
  const key = `${t.info.group}/${t.info.kind}`;
  return {
    ...GENERIC,
    nameRule: nameRuleOf(t.info.group, t.info.kind),
    ...(STRATEGIES[key] ?? {}),
  };
}

/** ObjectMeta validation shared by every kind. */
export function validateObjectMeta(obj: KubeObject, rule: NameRule): FieldError[] {
  const errs: FieldError[] = [];
  const md = obj.metadata;
  if (md.name)
    for (const m of validateName(md.name, rule))
      errs.push(fieldInvalid('metadata.name', md.name, m));
  errs.push(...validateLabels(md.labels));
  if (md.finalizers) {
    md.finalizers.forEach((f, i) => {
      if (
        typeof f !== 'string' ||
        (!f.includes('/') && !['kubernetes', 'orphan', 'foregroundDeletion'].includes(f))
      ) {
        if (typeof f !== 'string' || !/^[a-z0-9.-]+$/.test(f))
          errs.push(
            fieldInvalid(
              `metadata.finalizers[${i}]`,
              f,
              'name is neither a standard finalizer name nor is it fully qualified',
            ),
          );
      }
    });
  }
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
