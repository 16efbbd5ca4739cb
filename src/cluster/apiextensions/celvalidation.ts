/**
 * x-kubernetes-validations: CEL rules on CRD schemas, checked on every write of a custom resource
 * as apiextensions-apiserver's schema/cel validation.go does. A Validator mirrors the schema (only
 * the branches holding rules), its programs compiled once per CRD version; a rule runs at its node
 * with `self` bound to the value there (every element of a list, every value of a map), and a
 * transition rule (one naming `oldSelf`) only on update where the old value correlates. Errors
 * carry the apiserver's wording (`spec: Invalid value: "object": failed rule: ...`).
 *
 * Not modelled: the cost budget, and ratcheted errors surfacing as warnings (they are dropped, as
 * the apiserver drops them from the error list).
 */
import { celList, celMap, isCelError } from '@bufbuild/cel';
import type { CelInput, CelResult } from '@bufbuild/cel';
import type { CompiledRule } from './celcompilation';
import { compileRules, escapeCelName } from './celcompilation';
import { asDuration, asTimestamp } from '../cel/cellibrary';
import { OPTIONAL_NONE, optionalOf } from '../cel/celoptional';
import type { FieldError } from '../apimachinery/errors';
import {
  OMIT_VALUE,
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
} from '../apimachinery/errors';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { JSONSchemaProps, ValidationRule } from './jsonschema';

type Obj = Record<string, unknown>;

/** The rules of one schema node and the validators of its children that hold rules. */
interface Validator {
  schema: JSONSchemaProps;
  rules: CompiledRule[];
  isResourceRoot: boolean;
  properties: Map<string, Validator>;
  items?: Validator;
  additionalProperties?: Validator;
  allOf: Validator[];
}

export interface CelValidator {
  /** Errors of the rules on obj (the whole custom resource); old is the stored object on update. */
  validate(obj: Obj, old?: Obj): FieldError[];
}

/** The validator of a CRD version's schema, undefined when the schema has no rules. */
export function celValidator(root: JSONSchemaProps): CelValidator | undefined {
  const v = build(root, true);
  if (!v) return undefined;
  return {
    validate(obj, old) {
      const errs: FieldError[] = [];
      const unchanged = once(() => old !== undefined && deepEqual(obj, old));
      const converted = new WeakMap<object, unknown>();
      validateNode(v, { path: '', value: obj, old, unchanged, converted }, errs);
      return errs;
    },
  };
}

/** hasBlockingErr: errors after which CEL rules are not run (the value has the wrong shape). */
export function blocksCel(e: FieldError): boolean {
  return (
    e.type === 'FieldValueNotSupported' ||
    e.type === 'FieldValueRequired' ||
    e.type === 'FieldValueTooLong' ||
    e.type === 'FieldValueTooMany' ||
    e.type === 'FieldValueTypeInvalid'
  );
}

/** The error the strategy adds instead of running rules on an invalid object (a nil field path). */
export const CEL_NOT_CHECKED: FieldError = fieldInvalid(
  '<nil>',
  null,
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
);

function build(s: JSONSchemaProps, isResourceRoot: boolean): Validator | undefined {
  const properties = new Map<string, Validator>();
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const child = build(p, !!p['x-kubernetes-embedded-resource']);
    if (child) properties.set(k, child);
  }
  const items = s.items ? build(s.items, !!s.items['x-kubernetes-embedded-resource']) : undefined;
  const ap = s.additionalProperties;
  const additionalProperties = isObject(ap)
    ? build(ap, !!ap['x-kubernetes-embedded-resource'])
    : undefined;
  const allOf = (s.allOf ?? []).flatMap((a) => build(a, isResourceRoot) ?? []);
  const rules = compileRules(s, isResourceRoot);
  if (!rules.length && !properties.size && !items && !additionalProperties && !allOf.length)
    return undefined;
  return {
    schema: s,
    rules,
    isResourceRoot,
    properties,
    ...(items ? { items } : {}),
    ...(additionalProperties ? { additionalProperties } : {}),
    allOf,
  };
}

/** Map-typed objects correlate old and new values key by key (granular and atomic alike). */
export function correlatable(s: JSONSchemaProps): boolean {
  const t = s['x-kubernetes-map-type'];
  return t === undefined || t === 'granular' || t === 'atomic';
}

/** Walks value and validator together; ratcheting is CRDValidationRatcheting's (beta in 1.32). */
function validateNode(v: Validator, at: Visit, errs: FieldError[]): void {
  const { path, value, old } = at;
  if (value === null || value === undefined) return;
  if (v.rules.length) evaluateRules(v, at, errs);
  for (const a of v.allOf) validateNode(a, at, errs);
  if (Array.isArray(value) && v.items) {
    const oldItems = mapListCorrelation(v.schema, old);
    value.forEach((item, i) => {
      validateNode(v.items!, visitChild(at, `${path}[${i}]`, item, oldItems(item)), errs);
    });
  } else if (isObject(value)) {
    const oldObj = correlatable(v.schema) && isObject(old) ? old : undefined;
    for (const [k, x] of Object.entries(value)) {
      const p = v.properties.get(k);
      const sub = p ?? (v.schema.properties?.[k] ? undefined : v.additionalProperties);
      if (!sub) continue;
      const childPath = p ? (path ? `${path}.${k}` : k) : `${path}[${k}]`;
      validateNode(sub, visitChild(at, childPath, x, oldObj?.[k]), errs);
    }
  }
}

/** Where the walk is: the value, its correlated old value, and whether errors ratchet there. */
interface Visit {
  path: string;
  value: unknown;
  /** The correlated old value; undefined when there is none. */
  old: unknown;
  /**
   * Whether the nearest correlated value equals its old one (errors of rules without oldSelf
   * then ratchet); asked only when a rule fails, so a passing write compares nothing.
   */
  unchanged: () => boolean;
  /** CEL values already made of this write's objects: a subtree is converted once, not per rule. */
  converted: WeakMap<object, unknown>;
}

function visitChild(parent: Visit, path: string, value: unknown, old: unknown): Visit {
  const unchanged = old === undefined ? parent.unchanged : once(() => deepEqual(value, old));
  return { path, value, old, unchanged, converted: parent.converted };
}

function once(f: () => boolean): () => boolean {
  let memo: boolean | undefined;
  return () => (memo ??= f());
}

/** Old items of a list-type=map list by their keys; other lists do not correlate items. */
function mapListCorrelation(s: JSONSchemaProps, old: unknown): (item: unknown) => unknown {
  const keys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] !== 'map' || !keys || !Array.isArray(old)) return () => undefined;
  const id = (x: unknown) => (isObject(x) ? JSON.stringify(keys.map((k) => x[k] ?? null)) : '');
  const byKey = new Map(old.map((x) => [id(x), x]));
  return (item) => byKey.get(id(item));
}

function evaluateRules(v: Validator, at: Visit, errs: FieldError[]): void {
  const { path, value, old, unchanged } = at;
  const s = v.schema;
  const self = toCel(v.isResourceRoot ? resourceRootView(value) : value, s, at.converted);
  let oldSelf: unknown;
  const fieldPath = path || '<nil>';
  const type = s.type ?? '';
  for (const c of v.rules) {
    if (c.error) {
      errs.push(fieldInvalid(fieldPath, type, `rule compile error: ${c.error}`));
      continue;
    }
    if (!c.program) continue;
    // Transition rules run only where there is an old value to compare with, unless they take
    // oldSelf as an optional (optionalOldSelf), which is none on create.
    const optional = !!c.rule.optionalOldSelf;
    if (c.usesOldSelf && old === undefined && !optional) continue;
    if (c.usesOldSelf && old !== undefined)
      oldSelf ??= toCel(v.isResourceRoot ? resourceRootView(old) : old, s, at.converted);
    const bindings = !c.usesOldSelf
      ? { self }
      : optional
        ? { self, oldSelf: old === undefined ? OPTIONAL_NONE : optionalOf(oldSelf) }
        : { self, oldSelf };
    const result = c.program(bindings);
    if (isCelError(result)) {
      errs.push(fieldInvalid(fieldPath, type, evaluationError(result.message, c.rule)));
      continue;
    }
    if (result === true) continue;
    if (!c.usesOldSelf && unchanged()) continue;
    const errPath = c.fieldPath ? (path ? `${path}.${c.fieldPath}` : c.fieldPath) : fieldPath;
    // A messageExpression sees oldSelf as a plain value, optionalOldSelf or not.
    const plain = oldSelf === undefined ? { self } : { self, oldSelf };
    const detail =
      (c.messageProgram && messageFrom(c.messageProgram(plain))) || ruleMessageOrDefault(c.rule);
    // The failing value is named unless it is an object or a list (field.OmitValueType).
    const named = type === 'object' || type === 'array' ? OMIT_VALUE : value;
    errs.push(errorForReason(errPath, named, detail, c.rule.reason));
  }
}

/** What `self` sees of a resource: its fields, apiVersion, kind and metadata's name fields. */
function resourceRootView(value: unknown): unknown {
  if (!isObject(value)) return value;
  const md = isObject(value.metadata) ? value.metadata : {};
  const meta: Obj = {};
  if (md.name !== undefined) meta.name = md.name;
  if (md.generateName !== undefined) meta.generateName = md.generateName;
  return { ...value, metadata: meta };
}

/**
 * UnstructuredToVal: JSON typed by the schema — integer as CEL int, number as double (so `1` in
 * a number field compares as 1.0), int-or-string as either, objects as maps.
 */
export function toCel(
  value: unknown,
  s: JSONSchemaProps | undefined,
  converted = new WeakMap<object, unknown>(),
): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object' && converted.has(value)) return converted.get(value);
  const out = convert(value, s, converted);
  if (typeof value === 'object') converted.set(value, out);
  return out;
}

/** One value of toCel, its children through toCel (and its memo). */
function convert(
  value: object | string | number | boolean,
  s: JSONSchemaProps | undefined,
  converted: WeakMap<object, unknown>,
): unknown {
  if (typeof value === 'number') {
    if (s?.type === 'number') return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (typeof value === 'string') return fromString(value, s?.format);
  // Handing cel-es its own list and map types spares it wrapping them on every access.
  if (Array.isArray(value))
    return celList(value.map((x) => toCel(x, s?.items, converted) as CelInput));
  if (isObject(value)) {
    const ap = s?.additionalProperties;
    const fields = new Map<string, CelInput>();
    for (const [k, x] of Object.entries(value)) {
      const p = s?.properties?.[k];
      // A declared property is reached by its escaped name (`self.__namespace__`), a map key as is.
      const key = p ? escapeCelName(k) : k;
      if (key !== undefined)
        fields.set(key, toCel(x, p ?? (isObject(ap) ? ap : undefined), converted) as CelInput);
    }
    return celMap(fields);
  }
  return value;
}

/** A string typed by its format: `duration`, `date` and `date-time` are CEL durations and timestamps. */
function fromString(value: string, format: string | undefined): unknown {
  if (format === 'duration') return asDuration(value) ?? value;
  if (format === 'date' || format === 'date-time') return asTimestamp(value, format) ?? value;
  return value;
}

/** cel-go's wording of the evaluation errors cel-es reports in its own words. */
const EVAL_ERRORS: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/^field not found: (.*)$/, (m) => `no such key: ${m[1]}`],
  [/^index (-?\d+) out of bounds/, (m) => `index out of bounds: ${m[1]}`],
  [/^\w+ divide by zero$/, () => 'division by zero'],
  [/^\w+ modulus by zero$/, () => 'modulus by zero'],
  [/^int overflow/, () => 'integer overflow'],
  [/^uint overflow/, () => 'unsigned integer overflow'],
];

const NO_OVERLOAD = /^found no matching overload|^no such overload/;

/** A cel-es evaluation error in cel-go's words (`no such key: foo`, `no such overload`). */
export function celGoEvalMessage(message: string): string {
  if (NO_OVERLOAD.test(message)) return 'no such overload';
  for (const [re, render] of EVAL_ERRORS) {
    const m = message.match(re);
    if (m) return render(m);
  }
  return message;
}

function evaluationError(message: string, rule: ValidationRule): string {
  if (NO_OVERLOAD.test(message))
    return `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`;
  return `${celGoEvalMessage(message)} evaluating rule: ${ruleErrorString(rule)}`;
}

/** A messageExpression's result, or undefined (the rule's message is used) when unusable. */
function messageFrom(result: CelResult): string | undefined {
  if (typeof result !== 'string') return undefined;
  const trimmed = result.trim();
  if (!trimmed || /\n/.test(trimmed) || trimmed.length > 5 * 1024) return undefined;
  return trimmed;
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

function ruleErrorString(rule: ValidationRule): string {
  return (rule.message || rule.rule).trim();
}

function errorForReason(path: string, value: unknown, detail: string, reason?: string): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return fieldForbidden(path, detail);
    case 'FieldValueRequired':
      return fieldRequired(path, detail);
    case 'FieldValueDuplicate':
      return fieldDuplicate(path, value);
    default:
      return fieldInvalid(path, value, detail);
  }
}
