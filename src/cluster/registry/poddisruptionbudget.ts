/**
 * policy/v1 PodDisruptionBudget's registry strategy: a create starts from an empty status (the
 * disruption controller fills it), and the spec is validated as ValidatePodDisruptionBudgetSpec
 * does (minAvailable / maxUnavailable: one of them, a non-negative int or a percent up to 100%;
 * the unhealthy pod eviction policy).
 */
import type { FieldError } from '../apimachinery/errors';
import { fieldInvalid, fieldNotSupported } from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

const POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];
const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** appsvalidation.ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function validateIntOrPercent(v: unknown, field: string): FieldError[] {
  if (typeof v === 'number')
    return v < 0 ? [fieldInvalid(field, v, 'must be greater than or equal to 0')] : [];
  if (typeof v !== 'string')
    return [fieldInvalid(field, v, "must be an integer or percentage (e.g '5%')")];
  if (!/^[0-9]+%$/.test(v)) return [fieldInvalid(field, v, PERCENT_MSG)];
  return Number(v.slice(0, -1)) > 100
    ? [fieldInvalid(field, v, 'must not be greater than 100%')]
    : [];
}

export function prepareDisruptionBudgetForCreate(obj: KubeObject): void {
  obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
}

export function validateDisruptionBudget(obj: KubeObject): FieldError[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined)
    errs.push(fieldInvalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  for (const f of ['minAvailable', 'maxUnavailable'])
    if (spec[f] !== undefined) errs.push(...validateIntOrPercent(spec[f], `spec.${f}`));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && !POLICIES.includes(String(policy)))
    errs.push(fieldNotSupported('spec.unhealthyPodEvictionPolicy', policy, POLICIES));
  return errs;
}
