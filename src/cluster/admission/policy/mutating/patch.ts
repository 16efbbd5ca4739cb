/**
 * A MutatingAdmissionPolicy's mutation applied to the object (k8s.io/apiserver
 * admission/plugin/policy/mutating/patch): a JSONPatch expression's list of operations applied
 * as RFC 6902 (a failed `test` leaves the object as it was), or an ApplyConfiguration
 * expression's object merged into the object by its schema, as server-side apply merges (keyed
 * lists by key, sets by value), refused when it sets an atomic list, map or struct. Errors are the
 * upstream ones, word for word where the source gives them.
 */
import * as jsonpatch from 'fast-json-patch';
import { isCelList, isCelMap } from '@bufbuild/cel';
import { isObject } from '../../../apimachinery/patch';
import type { KubeObject } from '../../../apimachinery/types';
import { NotJson, celToJson } from '../../../cel/celjson';
import type { FieldType } from '../../../managedfields/fieldtypes';
import { fieldOf, isAtomic } from '../../../managedfields/fieldtypes';
import { mergeApplied } from '../../../managedfields/fieldmanager';
import { compile, evaluate, evaluationFailure } from '../../celexpression';

export interface Mutation {
  patchType: string;
  expression: string;
}

/** The expression's result, or its error in activation.Evaluate's words. */
function run(expression: string, bindings: Record<string, unknown>): unknown {
  const out = evaluate(compile(expression, true), bindings);
  if (out instanceof Error) throw new Error(evaluationFailure(expression, out));
  return out;
}

function jsonPatchOps(out: unknown): jsonpatch.Operation[] {
  if (!isCelList(out))
    throw new Error('type mismatch: JSONPatchType.expression should evaluate to array');
  return [...out].map((v) => {
    if (!isCelMap(v))
      throw new Error(
        'type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch',
      );
    const field = (k: string) => (typeof v.get(k) === 'string' ? (v.get(k) as string) : '');
    const op: Record<string, unknown> = { op: field('op'), path: field('path') };
    if (field('from')) op.from = field('from');
    if (v.has('value')) {
      try {
        op.value = celToJson(v.get('value'));
      } catch (err) {
        throw new Error(
          `JSONPath valueExpression evaluated to a type that could not marshal to JSON: ${err instanceof NotJson ? err.message : String(err)}`,
        );
      }
    }
    return op as unknown as jsonpatch.Operation;
  });
}

/** The value at a JSON pointer, or undefined. */
function at(doc: unknown, pointer: string): unknown {
  let cur = doc;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObject(cur)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

/** Where an operation's path ends: its parent's pointer and its last key (decoded). */
function split(path: string): { parent: string; key: string } {
  const i = path.lastIndexOf('/');
  return {
    parent: path.slice(0, Math.max(i, 0)),
    key: path
      .slice(i + 1)
      .replace(/~1/g, '/')
      .replace(/~0/g, '~'),
  };
}

/**
 * One operation as gopkg.in/evanphx/json-patch.v4 (the plugin's library) applies it, where it
 * differs from RFC 6902 as fast-json-patch follows it: `replace` of a key an object lacks sets
 * it; a failure is worded as v4 words it.
 */
function applyOne(doc: KubeObject, op: jsonpatch.Operation): KubeObject {
  const { parent, key } = split(op.path);
  // v4's findObject finds no parent for a path that is not a pointer (no leading `/`).
  const container = op.path.startsWith('/') ? at(doc, parent) : undefined;
  const missing = (verb: string, quoted: boolean) =>
    new Error(
      `${verb} operation does not apply: doc is missing path: ${quoted ? `"${op.path}"` : op.path}: missing value`,
    );
  if (op.op === 'add' && container === undefined) throw missing('add', true);
  if (op.op === 'replace') {
    if (container === undefined) throw missing('replace', false);
    if (isObject(container) && !(key in container))
      return jsonpatch.applyOperation(doc, { ...op, op: 'add' }, true, true, false)
        .newDocument as KubeObject;
  }
  if (op.op === 'remove') {
    if (container === undefined) throw missing('remove', true);
    if (isObject(container) && !(key in container))
      throw new Error(
        `error in remove for path: '${op.path}': Unable to remove nonexistent key: ${key}: missing value`,
      );
  }
  if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(op.op))
    throw new Error(`Unexpected kind: ${op.op}`);
  return jsonpatch.applyOperation(doc, op, true, true, false).newDocument as KubeObject;
}

function applyJsonPatch(obj: KubeObject, out: unknown): KubeObject {
  const ops = jsonPatchOps(out);
  let doc = structuredClone(obj);
  for (const op of ops) {
    try {
      doc = applyOne(doc, op);
    } catch (err) {
      if ((err as { name?: string }).name === 'TEST_OPERATION_FAILED') return obj;
      const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
      throw new Error(`JSON Patch: ${message}`);
    }
  }
  return doc;
}

/** fieldpath.PathElement's String() joined: `.spec.template.spec.containers[0]`. */
function findAtomics(path: string, t: FieldType, v: unknown): string[] {
  const out: string[] = [];
  if (isObject(v) && t.k === 'map') {
    if (t.atomic) out.push(path);
    for (const [k, x] of Object.entries(v))
      out.push(...findAtomics(`${path}.${k}`, fieldOf(t, k), x));
  } else if (Array.isArray(v) && t.k === 'list') {
    if (isAtomic(t)) out.push(path);
    v.forEach((x, i) => out.push(...findAtomics(`${path}[${i}]`, t.elem, x)));
  }
  return out;
}

function applyConfiguration(obj: KubeObject, out: unknown, t: FieldType): KubeObject {
  if (!isCelMap(out))
    throw new Error(
      `unsupported return type from ApplyConfiguration expression: ${isCelList(out) ? 'list' : typeof out}`,
    );
  const patch = celToJson(out) as Record<string, unknown>;
  const atomics = findAtomics('', t, patch);
  if (atomics.length)
    throw new Error(
      `error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}`,
    );
  return mergeApplied(obj, patch, t) as KubeObject;
}

/** The object after one mutation; throws the mutation's error. */
export function mutate(
  m: Mutation,
  obj: KubeObject,
  bindings: Record<string, unknown>,
  t: FieldType,
): KubeObject {
  const out = run(m.expression, bindings);
  return m.patchType === 'JSONPatch' ? applyJsonPatch(obj, out) : applyConfiguration(obj, out, t);
}
