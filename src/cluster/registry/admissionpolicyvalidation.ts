/**
 * ValidateValidatingAdmissionPolicy (pkg/apis/admissionregistration/validation of the pinned
 * release), the rules that need no CEL compiler: the failure policy, the parameter kind, that
 * match constraints with resource rules exist, that there are validations or audit annotations,
 * and each validation's expression, message and reason. Not yet: the rules inside the match
 * constraints, compiling the expressions against the matched types, variables and match
 * conditions; the admission plugin compiles them when the policy is used.
 */
import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  type FieldError,
} from '../apimachinery/errors';
import { isQualifiedName, validateName } from '../apimachinery/names';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { list, rec, str } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;

/** Sorted as sets.String.List gives them. */
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const MAX_AUDIT_ANNOTATIONS = 20;

/**
 * What every admission policy's spec is checked for first: the failure policy, the parameter
 * kind, and match constraints with at least one resource rule (they give the policy its types).
 */
export function policySpecErrors(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof spec.failurePolicy !== 'string') errs.push(fieldRequired('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy))
    errs.push(fieldNotSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  if (isObject(spec.paramKind)) errs.push(...paramKindErrors(spec.paramKind, 'spec.paramKind'));
  if (!isObject(spec.matchConstraints)) errs.push(fieldRequired('spec.matchConstraints'));
  else if (list(spec.matchConstraints.resourceRules).length === 0)
    errs.push(fieldRequired('spec.matchConstraints.resourceRules'));
  return errs;
}

export function validateValidatingAdmissionPolicy(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs = policySpecErrors(spec);
  const validations = list(spec.validations);
  const audits = list(spec.auditAnnotations);
  if (validations.length === 0 && audits.length === 0) {
    const why = 'validations or auditAnnotations must contain at least one item';
    errs.push(fieldRequired('spec.validations', why), fieldRequired('spec.auditAnnotations', why));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validationErrors(rec(v), `spec.validations[${i}]`)));
  if (audits.length > MAX_AUDIT_ANNOTATIONS)
    errs.push(
      fieldInvalid(
        'spec.auditAnnotations',
        spec.auditAnnotations,
        `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      ),
    );
  const keys = new Set<string>();
  audits.forEach((a, i) => {
    const at = `spec.auditAnnotations[${i}]`;
    const key = str(rec(a).key);
    // The key, prefixed by the policy's name, is the audit annotation's qualified name.
    const qualified = `${obj.metadata.name ?? ''}/${key}`;
    for (const m of isQualifiedName(qualified)) errs.push(fieldInvalid(`${at}.key`, qualified, m));
    if (!str(rec(a).valueExpression).trim())
      errs.push(fieldRequired(`${at}.valueExpression`, 'valueExpression is not specified'));
    if (keys.has(key)) errs.push(fieldDuplicate(`${at}.key`, key));
    keys.add(key);
  });
  return errs;
}

/** validateValidation, without compiling the expressions. */
function validationErrors(v: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(v.expression).trim())
    errs.push(fieldRequired(`${at}.expression`, 'expression is not specified'));
  const messageExpression = str(v.messageExpression);
  if (messageExpression && !messageExpression.trim())
    errs.push(
      fieldInvalid(`${at}.messageExpression`, messageExpression, 'must be non-empty if specified'),
    );
  const message = str(v.message);
  if (message && !message.trim())
    errs.push(fieldInvalid(`${at}.message`, message, 'must be non-empty if specified'));
  else if (/[\n\r]/.test(message.trim()))
    errs.push(fieldInvalid(`${at}.message`, message, 'must not contain line breaks'));
  if (typeof v.reason === 'string' && !REASONS.includes(v.reason))
    errs.push(fieldNotSupported(`${at}.reason`, v.reason, REASONS));
  return errs;
}

/** validateParamKind: an apiVersion with a DNS group and a DNS-1035 version, and a kind. */
function paramKindErrors(p: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(p.apiVersion);
  if (!apiVersion) errs.push(fieldRequired(`${at}.apiVersion`));
  else if (apiVersion.split('/').length > 2)
    errs.push(
      fieldInvalid(`${at}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`),
    );
  else {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    const groupErrs = group ? validateName(group, 'subdomain') : [];
    if (groupErrs.length) errs.push(fieldInvalid(`${at}.apiVersion`, group, groupErrs.join(',')));
    if (!version)
      errs.push(fieldInvalid(`${at}.apiVersion`, apiVersion, 'version must be specified'));
    else {
      const versionErrs = validateName(version, 'dns1035');
      if (versionErrs.length)
        errs.push(fieldInvalid(`${at}.apiVersion`, version, versionErrs.join(',')));
    }
  }
  const kind = str(p.kind);
  if (!kind) errs.push(fieldRequired(`${at}.kind`));
  else {
    const kindErrs = validateName(kind.toLowerCase(), 'dns1035');
    if (kindErrs.length)
      errs.push(
        fieldInvalid(
          `${at}.kind`,
          kind,
          `may have mixed case, but should otherwise match: ${kindErrs.join(',')}`,
        ),
      );
  }
  return errs;
}
