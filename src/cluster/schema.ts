/**
 * Structural schemas of CustomResourceDefinitions (apiextensions-apiserver/pkg/apiserver/schema):
 * pruning of unknown fields, defaulting, and OpenAPI v3 validation with kube-openapi's messages
 * (`spec.replicas in body should be greater than or equal to 0`).
 */
import type { FieldError } from './errors';
import { fieldInvalid, fieldNotSupported, fieldRequired, fieldTypeInvalid } from './errors';
import { isObject } from './patch';

export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  multipleOf?: number;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

export interface CompiledSchema {
  root: JSONSchemaProps;
  /** Drops fields the schema does not know (unless preserved), mutating obj; returns their paths. */
  prune(obj: Record<string, unknown>): string[];
  /** Fills defaults of absent fields, mutating obj. */
  default(obj: Record<string, unknown>): void;
  validate(obj: Record<string, unknown>): FieldError[];
}

export function compileSchema(root: JSONSchemaProps): CompiledSchema {
  return {
    root,
    prune: (obj) => pruneRoot(obj, root),
    default: (obj) => defaultNode(obj, root),
    validate: (obj) => {
      const errs: FieldError[] = [];
      // apiVersion, kind and metadata are validated by the generic machinery.
      const rest: Record<string, unknown> = { ...obj };
      delete rest.apiVersion;
      delete rest.kind;
      delete rest.metadata;
      const props = { ...(root.properties ?? {}) };
      delete props.apiVersion;
      delete props.kind;
      delete props.metadata;
      const required = (root.required ?? []).filter(
        (r) => r !== 'apiVersion' && r !== 'kind' && r !== 'metadata',
      );
      validateNode(rest, { ...root, properties: props, required }, '', errs);
      return errs;
    },
  };
}

function pruneRoot(obj: Record<string, unknown>, root: JSONSchemaProps): string[] {
  const removed: string[] = [];
  if (root['x-kubernetes-preserve-unknown-fields']) {
    for (const [k, v] of Object.entries(obj)) {
      const p = root.properties?.[k];
      if (p && k !== 'metadata') pruneNode(v, p, k, removed);
    }
    return removed;
  }
  for (const k of Object.keys(obj)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'metadata') continue;
    const p = root.properties?.[k];
    if (!p) {
      delete obj[k];
      removed.push(k);
    } else pruneNode(obj[k], p, k, removed);
  }
  return removed;
}

function pruneNode(v: unknown, s: JSONSchemaProps, path: string, removed: string[]): void {
  if (Array.isArray(v)) {
    if (s.items) v.forEach((x, i) => pruneNode(x, s.items!, `${path}[${i}]`, removed));
    return;
  }
  if (!isObject(v)) return;
  const preserve = !!s['x-kubernetes-preserve-unknown-fields'];
  const embedded = !!s['x-kubernetes-embedded-resource'];
  for (const k of Object.keys(v)) {
    // apiVersion/kind/metadata of an embedded object are kept as they are.
    if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const p = s.properties?.[k];
    if (p) pruneNode(v[k], p, `${path}.${k}`, removed);
    else if (isObject(s.additionalProperties))
      pruneNode(v[k], s.additionalProperties, `${path}.${k}`, removed);
    else if (s.additionalProperties === true || preserve) continue;
    else {
      delete v[k];
      removed.push(`${path}.${k}`);
    }
  }
}

function defaultNode(v: unknown, s: JSONSchemaProps): void {
  if (Array.isArray(v)) {
    if (s.items) for (const x of v) defaultNode(x, s.items);
    return;
  }
  if (!isObject(v)) return;
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    if ((!(k in v) || (v[k] === null && !p.nullable)) && p.default !== undefined)
      v[k] = structuredClone(p.default);
    if (k in v) defaultNode(v[k], p);
  }
  if (isObject(s.additionalProperties)) {
    for (const k of Object.keys(v))
      if (!s.properties?.[k]) defaultNode(v[k], s.additionalProperties);
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(v: unknown, s: JSONSchemaProps): boolean {
  if (s['x-kubernetes-int-or-string'])
    return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  switch (s.type) {
    case undefined:
    case '':
      return true;
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
      return true;
  }
}

function join(path: string, k: string): string {
  return path ? `${path}.${k}` : k;
}

function validateNode(v: unknown, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const name = path || 'body';
  if (v === null) {
    if (s.nullable || (s['x-kubernetes-preserve-unknown-fields'] && !s.type)) return;
    if (s.type || s['x-kubernetes-int-or-string']) {
      errs.push(
        fieldTypeInvalid(
          path,
          'null',
          `${name} in body must be of type ${s['x-kubernetes-int-or-string'] ? 'integer,string' : s.type}: "null"`,
        ),
      );
    }
    return;
  }
  if (!typeMatches(v, s)) {
    const want = s['x-kubernetes-int-or-string'] ? 'integer,string' : s.type;
    errs.push(
      fieldTypeInvalid(
        path,
        typeName(v),
        `${name} in body must be of type ${want}: "${typeName(v)}"`,
      ),
    );
    return;
  }
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    errs.push(fieldNotSupported(path, v, s.enum));
  }
  if (typeof v === 'number') {
    if (s.minimum !== undefined) {
      if (s.exclusiveMinimum ? !(v > s.minimum) : !(v >= s.minimum)) {
        errs.push(
          fieldInvalid(
            path,
            v,
            `${name} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`,
          ),
        );
      }
    }
    if (s.maximum !== undefined) {
      if (s.exclusiveMaximum ? !(v < s.maximum) : !(v <= s.maximum)) {
        errs.push(
          fieldInvalid(
            path,
            v,
            `${name} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`,
          ),
        );
      }
    }
    if (
      s.multipleOf !== undefined &&
      s.multipleOf > 0 &&
      Math.abs(v / s.multipleOf - Math.round(v / s.multipleOf)) > 1e-9
    ) {
      errs.push(fieldInvalid(path, v, `${name} in body should be a multiple of ${s.multipleOf}`));
    }
  }
  if (typeof v === 'string') {
    const len = [...v].length;
    if (s.maxLength !== undefined && len > s.maxLength) {
      errs.push({
        type: 'FieldValueTooLong',
        field: path,
        message: `Too long: may not be more than ${s.maxLength} bytes`,
      });
    }
    if (s.minLength !== undefined && len < s.minLength) {
      errs.push(
        fieldInvalid(path, v, `${name} in body should be at least ${s.minLength} chars long`),
      );
    }
    if (s.pattern !== undefined) {
      let re: RegExp | undefined;
      try {
        re = new RegExp(s.pattern, 'u');
      } catch {
        re = undefined;
      }
      if (re && !re.test(v))
        errs.push(fieldInvalid(path, v, `${name} in body should match '${s.pattern}'`));
    }
    if (s.format === 'date-time' && Number.isNaN(Date.parse(v))) {
      errs.push(fieldInvalid(path, v, `${name} in body must be of type date-time: "${v}"`));
    }
  }
  if (Array.isArray(v)) {
    if (s.maxItems !== undefined && v.length > s.maxItems) {
      errs.push({
        type: 'FieldValueTooLong',
        field: path,
        message: `Too many: ${v.length}: must have at most ${s.maxItems} items`,
      });
    }
    if (s.minItems !== undefined && v.length < s.minItems) {
      errs.push(fieldInvalid(path, v, `${name} in body should have at least ${s.minItems} items`));
    }
    if (s.uniqueItems || s['x-kubernetes-list-type'] === 'set') {
      const seen = new Set<string>();
      v.forEach((x, i) => {
        const k = JSON.stringify(x);
        if (seen.has(k))
          errs.push({
            type: 'FieldValueDuplicate',
            field: `${path}[${i}]`,
            message: `Duplicate value: ${k}`,
          });
        seen.add(k);
      });
    }
    if (s['x-kubernetes-list-type'] === 'map' && s['x-kubernetes-list-map-keys']) {
      const keys = s['x-kubernetes-list-map-keys'];
      const seen = new Set<string>();
      v.forEach((x, i) => {
        if (!isObject(x)) return;
        const k = JSON.stringify(keys.map((kk) => x[kk]));
        if (seen.has(k)) {
          errs.push({
            type: 'FieldValueDuplicate',
            field: `${path}[${i}]`,
            message: `Duplicate value: ${JSON.stringify(Object.fromEntries(keys.map((kk) => [kk, x[kk]])))}`,
          });
        }
        seen.add(k);
      });
    }
    if (s.items) v.forEach((x, i) => validateNode(x, s.items!, `${path}[${i}]`, errs));
  }
  if (isObject(v)) {
    for (const r of s.required ?? []) {
      if (!(r in v)) errs.push(fieldRequired(join(path, r)));
    }
    const n = Object.keys(v).length;
    if (s.maxProperties !== undefined && n > s.maxProperties) {
      errs.push({
        type: 'FieldValueTooLong',
        field: path,
        message: `Too many: ${n}: must have at most ${s.maxProperties} items`,
      });
    }
    if (s.minProperties !== undefined && n < s.minProperties) {
      errs.push(
        fieldInvalid(path, n, `${name} in body should have at least ${s.minProperties} properties`),
      );
    }
    for (const [k, x] of Object.entries(v)) {
      const p = s.properties?.[k];
      if (p) validateNode(x, p, join(path, k), errs);
      else if (isObject(s.additionalProperties))
        validateNode(x, s.additionalProperties, join(path, k), errs);
    }
  }
  for (const sub of s.allOf ?? []) validateNode(v, sub, path, errs);
  if (s.anyOf && !s.anyOf.some((sub) => quiet(v, sub, path))) {
    errs.push(
      fieldInvalid(
        path,
        v,
        `${name} in body must be of type ${
          s.anyOf
            .map((x) => x.type)
            .filter(Boolean)
            .join(' or ') || 'any of the allowed schemas'
        }`,
      ),
    );
  }
  if (s.oneOf && s.oneOf.filter((sub) => quiet(v, sub, path)).length !== 1) {
    errs.push(
      fieldInvalid(path, v, `${name} in body must validate one and only one schema (oneOf)`),
    );
  }
  if (s.not && quiet(v, s.not, path))
    errs.push(fieldInvalid(path, v, `${name} in body must not validate the schema (not)`));
}

function quiet(v: unknown, s: JSONSchemaProps, path: string): boolean {
  const e: FieldError[] = [];
  validateNode(v, s, path, e);
  return e.length === 0;
}
