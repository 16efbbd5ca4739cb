/**
 * ValidateHorizontalPodAutoscaler (pkg/apis/autoscaling/validation of the pinned release) with the
 * options its strategy picks (validationOptionsForHorizontalPodAutoscaler; HPAScaleToZero is off
 * in 1.36), over the autoscaling/v2 shape the cluster stores. A quantity in an error is named as
 * sent. Not yet: a container resource metric's name checked as a resource name, and the status
 * update's rules.
 */
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  type FieldError,
} from '../apimachinery/errors';
import { isPathSegmentName, validateName } from '../apimachinery/names';
import { isObject } from '../apimachinery/patch';
import { parseQuantity } from '../apimachinery/quantity';
import type { KubeObject } from '../apimachinery/types';
import { list, rec, str } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;

const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
/** The source field each metric type populates, in the order validateMetricSpec checks them. */
const SOURCE_FIELDS = ['object', 'external', 'pods', 'resource', 'containerResource'] as const;
const FIELD_OF_TYPE: Record<string, string> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  External: 'external',
  ContainerResource: 'containerResource',
};

interface ReferenceOptions {
  allowInvalidAPIVersion: boolean;
  allowEmptyAPIGroup: boolean;
}

export function validateHorizontalPodAutoscaler(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const oldSpec = old ? rec(old.spec) : undefined;
  const target = rec(spec.scaleTargetRef);
  const oldTarget = oldSpec ? rec(oldSpec.scaleTargetRef) : undefined;
  const minLowerBound = oldSpec && int(oldSpec.minReplicas) === 0 ? 0 : 1;
  const targetOpts: ReferenceOptions = {
    // An update that keeps the kind and apiVersion does not check the apiVersion again.
    allowInvalidAPIVersion:
      oldTarget !== undefined &&
      str(oldTarget.apiVersion) === str(target.apiVersion) &&
      str(oldTarget.kind) === str(target.kind),
    allowEmptyAPIGroup: str(target.kind) === 'ReplicationController',
  };
  const metricOpts: ReferenceOptions = {
    allowInvalidAPIVersion: list(oldSpec?.metrics).some((m) => {
      const metric = rec(m);
      return (
        metric.type === 'Object' &&
        isObject(metric.object) &&
        apiVersionError(rec(metric.object.describedObject), {
          allowInvalidAPIVersion: false,
          allowEmptyAPIGroup: true,
        }) !== undefined
      );
    }),
    allowEmptyAPIGroup: true,
  };
  const errs: FieldError[] = [];
  const min = int(spec.minReplicas);
  const max = int(spec.maxReplicas) ?? 0;
  if (min !== undefined && min < minLowerBound)
    errs.push(
      fieldInvalid('spec.minReplicas', min, `must be greater than or equal to ${minLowerBound}`),
    );
  if (max === 0) errs.push(fieldRequired('spec.maxReplicas', 'must be set and greater than 0'));
  else if (max < 0)
    errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than or equal to 1'));
  if (min !== undefined && max < min)
    errs.push(
      fieldInvalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'),
    );
  errs.push(...referenceErrors(target, 'spec.scaleTargetRef', targetOpts));
  errs.push(...metricsErrors(list(spec.metrics), min, metricOpts));
  if (isObject(spec.behavior)) {
    for (const key of ['scaleUp', 'scaleDown'] as const)
      if (isObject(spec.behavior[key]))
        errs.push(...scalingRulesErrors(spec.behavior[key], `spec.behavior.${key}`));
  }
  return errs;
}

/** ValidateCrossVersionObjectReference. */
function referenceErrors(ref: Obj, at: string, opts: ReferenceOptions): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['kind', 'name'] as const) {
    const v = str(ref[key]);
    if (!v) errs.push(fieldRequired(`${at}.${key}`));
    else for (const m of isPathSegmentName(v)) errs.push(fieldInvalid(`${at}.${key}`, v, m));
  }
  const why = apiVersionError(ref, opts);
  if (why) errs.push(fieldInvalid(`${at}.apiVersion`, str(ref.apiVersion), why));
  return errs;
}

/** ValidateAPIVersion: schema.ParseGroupVersion, and a group unless allowed empty. */
function apiVersionError(ref: Obj, opts: ReferenceOptions): string | undefined {
  if (opts.allowInvalidAPIVersion) return undefined;
  const gv = str(ref.apiVersion);
  if (!gv || gv === '/')
    return opts.allowEmptyAPIGroup ? undefined : 'apiVersion must specify API group';
  const slashes = gv.split('/').length - 1;
  if (slashes > 1) return `unexpected GroupVersion string: ${gv}`;
  const group = slashes === 1 ? gv.slice(0, gv.indexOf('/')) : '';
  return !opts.allowEmptyAPIGroup && group === '' ? 'apiVersion must specify API group' : undefined;
}

function metricsErrors(metrics: unknown[], min: number | undefined, opts: ReferenceOptions) {
  const errs: FieldError[] = [];
  let objectOrExternal = false;
  metrics.forEach((m, i) => {
    const metric = rec(m);
    errs.push(...metricSpecErrors(metric, `spec.metrics[${i}]`, opts));
    if (metric.type === 'Object' || metric.type === 'External') objectOrExternal = true;
  });
  if (min === 0 && !objectOrExternal)
    errs.push(
      fieldForbidden(
        'spec.metrics',
        'must specify at least one Object or External metric to support scaling to zero replicas',
      ),
    );
  return errs;
}

/** validateMetricSpec: a known type, its source populated, and no other source. */
function metricSpecErrors(spec: Obj, at: string, opts: ReferenceOptions): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if (!type) errs.push(fieldRequired(`${at}.type`, 'must specify a metric source type'));
  if (!SOURCE_TYPES.includes(type)) errs.push(fieldNotSupported(`${at}.type`, type, SOURCE_TYPES));
  const present = SOURCE_FIELDS.filter((f) => isObject(spec[f]));
  const first = present[0];
  if (first) errs.push(...sourceErrors(first, rec(spec[first]), `${at}.${first}`, opts));
  const expected = FIELD_OF_TYPE[type];
  if (expected === undefined) errs.push(fieldNotSupported(`${at}.type`, type, SOURCE_TYPES));
  else if (!isObject(spec[expected]))
    errs.push(
      fieldRequired(`${at}.${expected}`, 'must populate information for the given metric source'),
    );
  // Go ranges over a set here; the order of several stray sources is not defined there.
  if (present.length !== 1)
    for (const f of present.filter((p) => p !== expected))
      errs.push(fieldForbidden(`${at}.${f}`, 'must populate the given metric source only'));
  return errs;
}

function sourceErrors(
  kind: (typeof SOURCE_FIELDS)[number],
  src: Obj,
  at: string,
  opts: ReferenceOptions,
): FieldError[] {
  const target = rec(src.target);
  const errs: FieldError[] = [];
  const has = (k: string) => target[k] !== undefined && target[k] !== null;
  switch (kind) {
    case 'object':
      errs.push(...referenceErrors(rec(src.describedObject), `${at}.describedObject`, opts));
      errs.push(...identifierErrors(rec(src.metric), `${at}.metric`));
      errs.push(...targetErrors(target, `${at}.target`));
      if (!has('value') && !has('averageValue'))
        errs.push(
          fieldRequired(
            `${at}.target.averageValue`,
            'must set either a target value or averageValue',
          ),
        );
      break;
    case 'external':
      errs.push(...identifierErrors(rec(src.metric), `${at}.metric`));
      errs.push(...targetErrors(target, `${at}.target`));
      if (!has('value') && !has('averageValue'))
        errs.push(
          fieldRequired(
            `${at}.target.averageValue`,
            'must set either a target value for metric or a per-pod target',
          ),
        );
      if (has('value') && has('averageValue'))
        errs.push(
          fieldForbidden(
            `${at}.target.value`,
            'may not set both a target value for metric and a per-pod target',
          ),
        );
      break;
    case 'pods':
      errs.push(...identifierErrors(rec(src.metric), `${at}.metric`));
      errs.push(...targetErrors(target, `${at}.target`));
      if (!has('averageValue'))
        errs.push(
          fieldRequired(`${at}.target.averageValue`, 'must specify a positive target averageValue'),
        );
      break;
    case 'resource':
    case 'containerResource': {
      if (!str(src.name)) errs.push(fieldRequired(`${at}.name`, 'must specify a resource name'));
      if (kind === 'containerResource') {
        const container = str(src.container);
        if (!container) errs.push(fieldRequired(`${at}.container`, 'must specify a container'));
        else
          for (const m of validateName(container, 'label'))
            errs.push(fieldInvalid(`${at}.container`, container, m));
      }
      errs.push(...targetErrors(target, `${at}.target`));
      if (!has('averageUtilization') && !has('averageValue'))
        errs.push(
          fieldRequired(
            `${at}.target.averageUtilization`,
            'must set either a target raw value or a target utilization',
          ),
        );
      if (has('averageUtilization') && has('averageValue'))
        errs.push(
          fieldForbidden(
            `${at}.target.averageValue`,
            'may not set both a target raw value and a target utilization',
          ),
        );
      break;
    }
  }
  return errs;
}

/** validateMetricTarget. */
function targetErrors(t: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(t.type);
  if (!type) errs.push(fieldRequired(`${at}.type`, 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue')
    errs.push(
      fieldInvalid(`${at}.type`, type, 'must be either Utilization, Value, or AverageValue'),
    );
  for (const key of ['value', 'averageValue'] as const) {
    if (t[key] === undefined || t[key] === null) continue;
    const q = parseQuantity(t[key]);
    if (q === undefined || !(q > 0))
      errs.push(fieldInvalid(`${at}.${key}`, t[key], 'must be positive'));
  }
  const utilization = int(t.averageUtilization);
  if (utilization !== undefined && utilization < 1)
    errs.push(fieldInvalid(`${at}.averageUtilization`, utilization, 'must be greater than 0'));
  return errs;
}

/** validateMetricIdentifier. */
function identifierErrors(id: Obj, at: string): FieldError[] {
  const name = str(id.name);
  if (!name) return [fieldRequired(`${at}.name`, 'must specify a metric name')];
  return isPathSegmentName(name).map((m) => fieldInvalid(`${at}.name`, name, m));
}

/** validateScalingRules and validateScalingPolicy. */
function scalingRulesErrors(rules: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const window = int(rules.stabilizationWindowSeconds);
  if (window !== undefined && window < 0)
    errs.push(
      fieldInvalid(
        `${at}.stabilizationWindowSeconds`,
        window,
        'must be greater than or equal to zero',
      ),
    );
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS)
    errs.push(
      fieldInvalid(
        `${at}.stabilizationWindowSeconds`,
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  if (typeof rules.selectPolicy === 'string' && !SELECT_POLICIES.includes(rules.selectPolicy))
    errs.push(fieldNotSupported(`${at}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  const policies = list(rules.policies);
  if (policies.length === 0)
    errs.push(fieldRequired(`${at}.policies`, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const policy = rec(p);
    const pat = `${at}.policies[${i}]`;
    const type = str(policy.type);
    if (!POLICY_TYPES.includes(type))
      errs.push(fieldNotSupported(`${pat}.type`, type, POLICY_TYPES));
    const value = int(policy.value) ?? 0;
    if (value <= 0) errs.push(fieldInvalid(`${pat}.value`, value, 'must be greater than zero'));
    const period = int(policy.periodSeconds) ?? 0;
    if (period <= 0)
      errs.push(fieldInvalid(`${pat}.periodSeconds`, period, 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS)
      errs.push(
        fieldInvalid(
          `${pat}.periodSeconds`,
          period,
          `must be less than or equal to ${MAX_PERIOD_SECONDS}`,
        ),
      );
  });
  if (rules.tolerance !== undefined && rules.tolerance !== null) {
    const q = parseQuantity(rules.tolerance);
    if (q !== undefined && q < 0)
      errs.push(
        fieldInvalid(`${at}.tolerance`, rules.tolerance, 'must be greater than or equal to 0'),
      );
  }
  return errs;
}
