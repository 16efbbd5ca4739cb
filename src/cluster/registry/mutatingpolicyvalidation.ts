/**
 * ValidateMutatingAdmissionPolicy (pkg/apis/admissionregistration/validation of the pinned
 * release), the rules that need no CEL compiler: the failure policy, the parameter kind, match
 * constraints with resource rules whose operations a mutation can act on (not DELETE), at least
 * one mutation with a patch type and the expression that type needs, and the reinvocation
 * policy. Not yet, as for ValidatingAdmissionPolicy: the rules inside the match constraints and
 * compiling the expressions; the admission plugin compiles them when the policy is used.
 */
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  type FieldError,
} from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { list, rec, str } from '../apimachinery/unstructured';
import { policySpecErrors } from './admissionpolicyvalidation';

/** supportedMutatingOperations, sorted as sets.String.List gives them. */
const MUTATING_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'UPDATE'];
const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];

/** Each patch type's own field, and the other type's, which it must not carry. */
const PATCH_FIELDS: Record<string, { own: string; other: string }> = {
  JSONPatch: { own: 'jsonPatch', other: 'applyConfiguration' },
  ApplyConfiguration: { own: 'applyConfiguration', other: 'jsonPatch' },
};

function mutationErrors(m: Record<string, unknown>, at: string): FieldError[] {
  const patchType = str(m.patchType);
  if (!patchType) return [fieldRequired(`${at}.patchType`)];
  const fields = PATCH_FIELDS[patchType];
  if (!fields) return [fieldNotSupported(`${at}.patchType`, patchType, PATCH_TYPES)];
  const errs: FieldError[] = [];
  const own = m[fields.own];
  if (own == null)
    errs.push(
      fieldRequired(`${at}.${fields.own}`, `must be specified when patchType is ${patchType}`),
    );
  else if (!str(rec(own).expression).trim())
    errs.push(fieldRequired(`${at}.${fields.own}.expression`));
  if (m[fields.other] != null)
    errs.push(
      fieldInvalid(
        `${at}.${fields.other}`,
        `{${fields.other}}`,
        `must not be specified when patchType is ${patchType}`,
      ),
    );
  return errs;
}

function operationErrors(rules: unknown, at: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const r of list(rules))
    for (const op of list(rec(r).operations))
      if (typeof op === 'string' && !MUTATING_OPERATIONS.includes(op))
        errs.push(fieldNotSupported(`${at}.resourceRules.operations`, op, MUTATING_OPERATIONS));
  return errs;
}

export function validateMutatingAdmissionPolicy(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs = policySpecErrors(spec);
  if (isObject(spec.matchConstraints))
    errs.push(...operationErrors(spec.matchConstraints.resourceRules, 'spec.matchConstraints'));
  const mutations = list(spec.mutations);
  if (!mutations.length)
    errs.push(fieldRequired('spec.mutations', 'mutations must contain at least one item'));
  mutations.forEach((m, i) => errs.push(...mutationErrors(rec(m), `spec.mutations[${i}]`)));
  const reinvocation = str(spec.reinvocationPolicy);
  if (!reinvocation) errs.push(fieldRequired('spec.reinvocationPolicy'));
  else if (!REINVOCATION_POLICIES.includes(reinvocation))
    errs.push(fieldNotSupported('spec.reinvocationPolicy', reinvocation, REINVOCATION_POLICIES));
  return errs;
}

/** validateMutatingAdmissionPolicyBindingSpec's operations rule (the rest is shared with none yet). */
export function validateMutatingAdmissionPolicyBinding(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs: FieldError[] = [];
  if (!str(spec.policyName)) errs.push(fieldRequired('spec.policyName'));
  if (isObject(spec.matchResources))
    errs.push(...operationErrors(spec.matchResources.resourceRules, 'spec.matchResources'));
  return errs;
}
