/**
 * Structural schemas of CustomResourceDefinitions (apiextensions-apiserver/pkg/apiserver/schema):
 * pruning of unknown fields, defaulting, and validation — OpenAPI v3 (schemavalidation.ts), then
 * the CEL rules of x-kubernetes-validations (celvalidation.ts), as the custom resource strategy
 * runs them.
 */
import { celValidator, CEL_NOT_CHECKED, blocksCel } from './celvalidation';
import type { FieldError } from '../apimachinery/errors';
import { fieldInvalid } from '../apimachinery/errors';
import { goJsonType } from '../apimachinery/unstructured';
import { isObject } from '../apimachinery/patch';
import type { JSONSchemaProps } from './jsonschema';
import { validateValue } from './schemavalidation';

export type { JSONSchemaProps, ValidationRule } from './jsonschema';

export interface CompiledSchema {
  root: JSONSchemaProps;
  /** Drops fields the schema does not know (unless preserved), mutating obj; returns their paths. */
  prune(obj: Record<string, unknown>): string[];
  /** Fills defaults of absent fields, mutating obj. */
  default(obj: Record<string, unknown>): void;
  /** OpenAPI then CEL validation; old is the stored object on update (for transition rules). */
  validate(obj: Record<string, unknown>, old?: Record<string, unknown>): FieldError[];
}

/** A scale subresource's paths (the registry's ScaleSpec is this). */
export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/**
 * `scale`: the version's scale subresource, whose replicas paths the validator checks after the
 * schema (customResourceValidator's ValidateScaleSpec and ValidateScaleStatus), before CEL.
 */
export function compileSchema(root: JSONSchemaProps, scale?: ScaleSpec): CompiledSchema {
  const cel = celValidator(root);
  return {
    root,
    prune: (obj) => pruneRoot(obj, root),
    default: (obj) => defaultNode(obj, root),
    validate: (obj, old) => {
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
      validateValue(rest, { ...root, properties: props, required }, '', errs);
      if (scale) errs.push(...validateScale(obj, scale));
      // CEL rules see only values of the right shape (hasBlockingErr in the CR strategy).
      if (cel) errs.push(...(errs.some(blocksCel) ? [CEL_NOT_CHECKED] : cel.validate(obj, old)));
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

/**
 * ValidateScaleSpec and ValidateScaleStatus: the replicas at each path, when set, an int64 from 0
 * to MaxInt32 (unstructured.NestedInt64's wording when it is another type), and the label selector
 * a string. Paths are named as the subresource spells them (`.spec.replicas`).
 */
function validateScale(obj: Record<string, unknown>, scale: ScaleSpec): FieldError[] {
  const errs: FieldError[] = [];
  for (const path of [scale.specReplicasPath, scale.statusReplicasPath]) {
    const v = nested(obj, path);
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isInteger(v))
      errs.push(
        fieldInvalid(
          path,
          0,
          `${path} accessor error: ${goValue(v)} is of the type ${goJsonType(v)}, expected int64`,
        ),
      );
    else if (v < 0) errs.push(fieldInvalid(path, v, 'should be a non-negative integer'));
    else if (v > 2147483647)
      errs.push(fieldInvalid(path, v, 'should be less than or equal to 2147483647'));
  }
  const sel = scale.labelSelectorPath;
  const v = sel === undefined ? undefined : nested(obj, sel);
  if (sel !== undefined && v !== undefined && v !== null && typeof v !== 'string')
    errs.push(
      fieldInvalid(
        sel,
        '',
        `${sel} accessor error: ${goValue(v)} is of the type ${goJsonType(v)}, expected string`,
      ),
    );
  return errs;
}

function nested(obj: Record<string, unknown>, path: string): unknown {
  let v: unknown = obj;
  for (const f of path.replace(/^\./, '').split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[f];
  }
  return v;
}

/** %v of a scalar; containers as fmt prints them only roughly (map[...] / [...]). */
function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (v !== null && typeof v === 'object')
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`)
      .join(' ')}]`;
  return String(v);
}
