/**
 * OpenAPI v3 validation of custom resources against their structural schema, with kube-openapi's
 * messages (`spec.replicas in body should be greater than or equal to 0`). One function per
 * schema type (as kube-openapi's validate package has one validator per type) and one per
 * x-kubernetes-* keyword, dispatched by validateValue; CEL rules (x-kubernetes-validations) run
 * afterwards, in celvalidation.ts.
 */
import type { FieldError } from '../apimachinery/errors';
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTypeInvalid,
} from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { JSONSchemaProps } from './jsonschema';

type Obj = Record<string, unknown>;

/** Where a value sits: its field path and the name kube-openapi prints (`body` at the root). */
interface At {
  path: string;
  name: string;
}

function at(path: string): At {
  return { path, name: path || 'body' };
}

function child(path: string, k: string): string {
  return path ? `${path}.${k}` : k;
}

/** Validates v against s, appending to errs. */
export function validateValue(v: unknown, s: JSONSchemaProps, path: string, errs: FieldError[]) {
  const where = at(path);
  if (v === null) {
    validateNull(s, where, errs);
    return;
  }
  if (!typeMatches(v, s)) {
    const got = jsonType(v);
    errs.push(
      fieldTypeInvalid(
        path,
        got,
        `${where.name} in body must be of type ${declaredType(s)}: "${got}"`,
      ),
    );
    return;
  }
  validateEnum(v, s, where, errs);
  if (typeof v === 'number') validateNumber(v, s, where, errs);
  else if (typeof v === 'string') validateString(v, s, where, errs);
  else if (Array.isArray(v)) validateArray(v, s, where, errs);
  else if (isObject(v)) validateObject(v, s, where, errs);
  // A boolean has nothing to check beyond its type and enum.
  validateComposition(v, s, where, errs);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function declaredType(s: JSONSchemaProps): string | undefined {
  return s['x-kubernetes-int-or-string'] ? 'integer,string' : s.type;
}

function typeMatches(v: unknown, s: JSONSchemaProps): boolean {
  if (s['x-kubernetes-int-or-string']) return validIntOrString(v);
  switch (s.type) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      // No type (x-kubernetes-preserve-unknown-fields): anything goes.
      return true;
  }
}

/** x-kubernetes-int-or-string: an integer or a string, nothing else. */
function validIntOrString(v: unknown): boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

/** null passes only where nullable (or untyped and preserving unknown fields). */
function validateNull(s: JSONSchemaProps, where: At, errs: FieldError[]): void {
  if (s.nullable || (s['x-kubernetes-preserve-unknown-fields'] && !s.type)) return;
  const want = declaredType(s);
  if (want)
    errs.push(
      fieldTypeInvalid(where.path, 'null', `${where.name} in body must be of type ${want}: "null"`),
    );
}

function validateEnum(v: unknown, s: JSONSchemaProps, where: At, errs: FieldError[]): void {
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v)))
    errs.push(fieldNotSupported(where.path, v, s.enum));
}

/** integer and number: bounds and multipleOf. */
function validateNumber(v: number, s: JSONSchemaProps, where: At, errs: FieldError[]): void {
  const { path, name } = where;
  if (s.minimum !== undefined && (s.exclusiveMinimum ? !(v > s.minimum) : !(v >= s.minimum))) {
    const bound = `${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`;
    errs.push(fieldInvalid(path, v, `${name} in body should be greater than ${bound}`));
  }
  if (s.maximum !== undefined && (s.exclusiveMaximum ? !(v < s.maximum) : !(v <= s.maximum))) {
    const bound = `${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`;
    errs.push(fieldInvalid(path, v, `${name} in body should be less than ${bound}`));
  }
  if (
    s.multipleOf !== undefined &&
    s.multipleOf > 0 &&
    Math.abs(v / s.multipleOf - Math.round(v / s.multipleOf)) > 1e-9
  ) {
    errs.push(fieldInvalid(path, v, `${name} in body should be a multiple of ${s.multipleOf}`));
  }
}

/** string: the string validator, then the format validator (date-time), as kube-openapi orders them. */
function validateString(v: string, s: JSONSchemaProps, where: At, errs: FieldError[]): void {
  const err = stringError(v, s, where);
  if (err) errs.push(err);
  if (s.format === 'date-time' && Number.isNaN(Date.parse(v)))
    errs.push(
      fieldInvalid(where.path, v, `${where.name} in body must be of type date-time: "${v}"`),
    );
}

/** kube-openapi's stringValidator: length in runes, then pattern, stopping at the first failure. */
function stringError(v: string, s: JSONSchemaProps, { path, name }: At): FieldError | undefined {
  const len = [...v].length;
  if (s.maxLength !== undefined && len > s.maxLength)
    return {
      type: 'FieldValueTooLong',
      field: path,
      message: `Too long: may not be more than ${s.maxLength} bytes`,
    };
  if (s.minLength !== undefined && len < s.minLength)
    return fieldInvalid(path, v, `${name} in body should be at least ${s.minLength} chars long`);
  if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern);
    if (re && !re.test(v))
      return fieldInvalid(path, v, `${name} in body should match '${s.pattern}'`);
  }
  return undefined;
}

function compilePattern(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/** array: item counts, uniqueness, x-kubernetes-list-type, then each item. */
function validateArray(v: unknown[], s: JSONSchemaProps, where: At, errs: FieldError[]): void {
  const { path, name } = where;
  if (s.maxItems !== undefined && v.length > s.maxItems) {
    errs.push({
      type: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${v.length}: must have at most ${s.maxItems} items`,
    });
  }
  if (s.minItems !== undefined && v.length < s.minItems)
    errs.push(fieldInvalid(path, v, `${name} in body should have at least ${s.minItems} items`));
  validateListType(v, s, path, errs);
  if (s.items) v.forEach((x, i) => validateValue(x, s.items!, `${path}[${i}]`, errs));
}

/** x-kubernetes-list-type: `set` items are unique, `map` items unique by their keys. */
function validateListType(v: unknown[], s: JSONSchemaProps, path: string, errs: FieldError[]) {
  const listType = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  let identity: ((x: unknown) => { key: string; shown: string } | undefined) | undefined;
  if (s.uniqueItems || listType === 'set') {
    identity = (x) => {
      const key = JSON.stringify(x);
      return { key, shown: key };
    };
  } else if (listType === 'map' && keys) {
    identity = (x) => {
      if (!isObject(x)) return undefined;
      const shown = JSON.stringify(Object.fromEntries(keys.map((k) => [k, x[k]])));
      return { key: JSON.stringify(keys.map((k) => x[k])), shown };
    };
  }
  if (!identity) return;
  const seen = new Set<string>();
  v.forEach((x, i) => {
    const id = identity(x);
    if (!id) return;
    if (seen.has(id.key))
      errs.push({
        type: 'FieldValueDuplicate',
        field: `${path}[${i}]`,
        message: `Duplicate value: ${id.shown}`,
      });
    seen.add(id.key);
  });
}

/** object: required fields, property counts, then each property (or additionalProperties). */
function validateObject(v: Obj, s: JSONSchemaProps, where: At, errs: FieldError[]): void {
  const { path, name } = where;
  for (const r of s.required ?? []) if (!(r in v)) errs.push(fieldRequired(child(path, r)));
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) {
    errs.push({
      type: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${n}: must have at most ${s.maxProperties} items`,
    });
  }
  if (s.minProperties !== undefined && n < s.minProperties)
    errs.push(
      fieldInvalid(path, n, `${name} in body should have at least ${s.minProperties} properties`),
    );
  for (const [k, x] of Object.entries(v)) {
    const p =
      s.properties?.[k] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
    if (p) validateValue(x, p, child(path, k), errs);
  }
}

/** allOf, anyOf, oneOf and not. */
function validateComposition(v: unknown, s: JSONSchemaProps, where: At, errs: FieldError[]) {
  const { path, name } = where;
  for (const sub of s.allOf ?? []) validateValue(v, sub, path, errs);
  if (s.anyOf && !s.anyOf.some((sub) => passes(v, sub, path))) {
    const types = s.anyOf
      .map((x) => x.type)
      .filter(Boolean)
      .join(' or ');
    errs.push(
      fieldInvalid(
        path,
        v,
        `${name} in body must be of type ${types || 'any of the allowed schemas'}`,
      ),
    );
  }
  if (s.oneOf && s.oneOf.filter((sub) => passes(v, sub, path)).length !== 1)
    errs.push(
      fieldInvalid(path, v, `${name} in body must validate one and only one schema (oneOf)`),
    );
  if (s.not && passes(v, s.not, path))
    errs.push(fieldInvalid(path, v, `${name} in body must not validate the schema (not)`));
}

function passes(v: unknown, s: JSONSchemaProps, path: string): boolean {
  const e: FieldError[] = [];
  validateValue(v, s, path, e);
  return e.length === 0;
}
