/**
 * Object name and label validation with apimachinery's regexes and messages, plus generateName's
 * random suffix (names.SimpleNameGenerator: 5 characters that avoid vowels and look-alikes).
 */
import type { FieldError } from './errors';
import { fieldInvalid } from './errors';
import generated from '../../../generated/namerules.json';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/**
 * apimachinery's name checks, as each kind's validation picks one: a DNS-1123 subdomain or label,
 * a DNS-1035 label, a path segment (RBAC's roles and bindings: anything but `.`, `..`, `/`, `%`),
 * or none at all (CertificateSigningRequest).
 */
export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'pathSegment' | 'any';

const NAME_RULES = generated.nameRules as Record<string, NameRule>;

/**
 * The name rule of a built-in kind, as its validation in the pinned release picks it
 * (scripts/apigen-namerules.mjs); a DNS-1123 subdomain for the kinds that say nothing else.
 */
export function nameRuleOf(group: string, kind: string): NameRule {
  return NAME_RULES[`${group}/${kind}`] ?? 'subdomain';
}

export function validateName(name: string, rule: NameRule): string[] {
  if (rule === 'any') return [];
  if (rule === 'pathSegment') return isPathSegmentName(name);
  const errs: string[] = [];
  if (rule === 'subdomain') {
    if (name.length > 253) errs.push('must be no more than 253 characters');
    if (!DNS1123_SUBDOMAIN.test(name)) {
      errs.push(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      );
    }
  } else if (rule === 'label') {
    if (name.length > 63) errs.push('must be no more than 63 characters');
    if (!DNS1123_LABEL.test(name)) {
      errs.push(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      );
    }
  } else {
    if (name.length > 63) errs.push('must be no more than 63 characters');
    if (!DNS1035_LABEL.test(name)) {
      errs.push(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      );
    }
  }
  return errs;
}

/**
 * A generateName checked as the kind's name function checks it with prefix=true: the DNS rules
 * on the prefix with its trailing dash masked (maskTrailingDash drops the dash and the character
 * before it for an `a`), a path segment for '/' and '%' only (IsValidPathSegmentPrefix).
 */
export function validateNamePrefix(prefix: string, rule: NameRule): string[] {
  if (rule === 'any') return [];
  if (rule === 'pathSegment') return isPathSegmentPrefix(prefix);
  const masked = prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -2)}a` : prefix;
  return validateName(masked, rule);
}

/** apimachinery's content.IsPathSegmentName: the name is safe as one segment of a URL path. */
export function isPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  return isPathSegmentPrefix(name);
}

/** content.IsPathSegmentPrefix: what a name's prefix may not contain. */
export function isPathSegmentPrefix(name: string): string[] {
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** apimachinery's IsQualifiedName: `[prefix/]name`, the prefix a DNS-1123 subdomain. */
export function isQualifiedName(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2)
    return [
      `a qualified name ${QUALIFIED_NAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  const errs: string[] = [];
  const name = parts[parts.length - 1]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (!prefix) errs.push('prefix part must be non-empty');
    else errs.push(...validateName(prefix, 'subdomain').map((m) => `prefix part ${m}`));
  }
  if (!name) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${QUALIFIED_NAME_MSG}`);
  return errs;
}

/** apimachinery's IsValidLabelValue. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value))
    errs.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  return errs;
}

export function validateLabels(labels: unknown, field = 'metadata.labels'): FieldError[] {
  if (labels === undefined || labels === null) return [];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
    for (const msg of isQualifiedName(k)) errs.push(fieldInvalid(field, k, msg));
    // A value that is not a string gets the pattern's message, as no string spelling of it fits.
    const valueErrs = isValidLabelValue(typeof v === 'string' ? v : '-');
    for (const msg of valueErrs) errs.push(fieldInvalid(field, v, msg));
  }
  return errs;
}

/** `field` is where errors point: apiextensions' conversion check names it `metadata.annotation`. */
export function validateAnnotations(
  annotations: unknown,
  field = 'metadata.annotations',
): FieldError[] {
  if (annotations === undefined || annotations === null) return [];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations as Record<string, unknown>)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldInvalid(field, k, msg));
    total += k.length + (typeof v === 'string' ? v.length : 0);
  }
  if (total > 262144)
    errs.push({
      type: 'FieldValueTooLong',
      field,
      message: 'Too long: must have at most 262144 bytes',
    });
  return errs;
}

const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** names.SimpleNameGenerator: base (trimmed to 58) + 5 random characters. */
export function generateName(base: string): string {
  const b = base.length > 58 ? base.slice(0, 58) : base;
  let s = '';
  for (let i = 0; i < 5; i++) s += ALPHANUMS[Math.floor(Math.random() * ALPHANUMS.length)];
  return b + s;
}
