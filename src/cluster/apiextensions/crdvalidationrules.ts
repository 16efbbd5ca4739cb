/**
 * The CRD's own validation of its x-kubernetes-validations rules (apiextensions validation.go's
 * ValidateCustomResourceDefinitionOpenAPISchema): rules that are empty, malformed, do not compile,
 * or read oldSelf where old values cannot be correlated make the CRD invalid, with the apiserver's
 * paths and messages.
 */
import { compileRules } from './celcompilation';
import { correlatable } from './celvalidation';
import type { FieldError } from '../apimachinery/errors';
import {
  RawValue,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  goJSONString,
} from '../apimachinery/errors';
import type { JSONSchemaProps, ValidationRule } from './jsonschema';
import { isObject } from '../apimachinery/patch';

const REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];

/**
 * The errors of every rule in a CRD's schema, at the apiserver's paths
 * (`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule` for the
 * schema every version shares, `spec.versions[1].schema.openAPIV3Schema…` for one version's).
 */
export function validateSchemaRules(root: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  walkRules(root, path, true, undefined, errs);
  return errs;
}

function walkRules(
  s: JSONSchemaProps,
  path: string,
  isResourceRoot: boolean,
  uncorrelatable: string | undefined,
  errs: FieldError[],
): void {
  if (s['x-kubernetes-validations']?.length)
    errs.push(...ruleErrors(s, path, isResourceRoot, uncorrelatable));
  const mapUncorrelatable = correlatable(s) ? uncorrelatable : (uncorrelatable ?? path);
  for (const [k, p] of Object.entries(s.properties ?? {}))
    walkRules(
      p,
      `${path}.properties[${k}]`,
      !!p['x-kubernetes-embedded-resource'],
      mapUncorrelatable,
      errs,
    );
  if (isObject(s.additionalProperties)) {
    const ap = s.additionalProperties;
    walkRules(
      ap,
      `${path}.additionalProperties`,
      !!ap['x-kubernetes-embedded-resource'],
      uncorrelatable,
      errs,
    );
  }
  if (s.items) {
    const listUncorrelatable =
      s['x-kubernetes-list-type'] === 'map' ? uncorrelatable : (uncorrelatable ?? path);
    walkRules(
      s.items,
      `${path}.items`,
      !!s.items['x-kubernetes-embedded-resource'],
      listUncorrelatable,
      errs,
    );
  }
}

function ruleErrors(
  s: JSONSchemaProps,
  path: string,
  isResourceRoot: boolean,
  uncorrelatable: string | undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  const rules = s['x-kubernetes-validations'] ?? [];
  rules.forEach((r, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const msg = (r.message ?? '').trim();
    if (!(r.rule ?? '').trim()) errs.push(fieldRequired(`${at}.rule`, 'rule is not specified'));
    else if (r.message && !msg)
      errs.push(fieldInvalid(`${at}.message`, r.message, 'message must be non-empty if specified'));
    else if (/\n/.test(msg))
      errs.push(fieldInvalid(`${at}.message`, r.message, 'message must not contain line breaks'));
    else if (/\n/.test(r.rule.trim()) && !msg)
      errs.push(
        fieldRequired(`${at}.message`, 'message must be specified if rule contains line breaks'),
      );
    if (
      r.messageExpression !== undefined &&
      r.messageExpression !== '' &&
      !r.messageExpression.trim()
    )
      errs.push(
        fieldRequired(
          `${at}.messageExpression`,
          'messageExpression must be non-empty if specified',
        ),
      );
    if (r.reason !== undefined && !REASONS.includes(r.reason))
      errs.push(fieldNotSupported(`${at}.reason`, r.reason, REASONS));
    if (r.fieldPath !== undefined && r.fieldPath !== '') {
      if (!r.fieldPath.trim())
        errs.push(
          fieldInvalid(`${at}.fieldPath`, r.fieldPath, 'fieldPath must be non-empty if specified'),
        );
      else if (/\n/.test(r.fieldPath))
        errs.push(
          fieldInvalid(`${at}.fieldPath`, r.fieldPath, 'fieldPath must not contain line breaks'),
        );
    }
  });
  // Rules are compiled only once the schema around them is sound.
  if (errs.length) return errs;
  compileRules(s, isResourceRoot).forEach((c, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const r = rules[i]!;
    if (r.fieldPath && c.fieldPath === undefined)
      errs.push(fieldInvalid(`${at}.fieldPath`, r.fieldPath, 'fieldPath must be a valid path'));
    if (c.error) errs.push(fieldInvalid(`${at}.rule`, goValidationRule(r), c.error));
    if (c.messageExpressionError)
      errs.push(
        fieldInvalid(`${at}.messageExpression`, goValidationRule(r), c.messageExpressionError),
      );
    if (c.usesOldSelf && uncorrelatable !== undefined)
      errs.push(
        fieldInvalid(
          `${at}.rule`,
          r.rule,
          `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`,
        ),
      );
    else if (!c.usesOldSelf && !c.error && r.optionalOldSelf !== undefined)
      errs.push(
        fieldInvalid(
          `${at}.optionalOldSelf`,
          r.optionalOldSelf,
          'may not be set if oldSelf is not used in rule',
        ),
      );
  });
  return errs;
}

/**
 * The rule as field.Error prints a value that is not a string or number: json.Marshal of the
 * internal type, which has no JSON tags, so its fields go by their Go names; a nil pointer is
 * null, a set one its value; strings HTML-escaped as json.Marshal escapes them.
 */
function goValidationRule(r: ValidationRule): RawValue {
  const fields: Array<[string, string | boolean | null]> = [
    ['Rule', r.rule],
    ['Message', r.message ?? ''],
    ['MessageExpression', r.messageExpression ?? ''],
    ['Reason', r.reason ?? null],
    ['FieldPath', r.fieldPath ?? ''],
    ['OptionalOldSelf', r.optionalOldSelf ?? null],
  ];
  const value = (v: string | boolean | null) =>
    typeof v === 'string' ? goJSONString(v) : String(v);
  return new RawValue(`{${fields.map(([k, v]) => `"${k}":${value(v)}`).join(',')}}`);
}
