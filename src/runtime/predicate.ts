/**
 * controller-runtime's pkg/predicate: filters on the events a watch delivers. Create, Delete and
 * Generic pass by default; the *Changed predicates only judge Update events. Combining with
 * and/or/not works per event kind, as predicate.And/Or/Not do.
 */
import type { KubeObject } from '../cluster/apimachinery/types';

export interface UpdateEvent {
  objectOld: KubeObject;
  objectNew: KubeObject;
}

export interface Predicate {
  /** Shown in traces ("filtered by GenerationChanged"). */
  name?: string;
  create?(obj: KubeObject): boolean;
  update?(e: UpdateEvent): boolean;
  delete?(obj: KubeObject): boolean;
  generic?(obj: KubeObject): boolean;
}

export type EventKind = 'create' | 'update' | 'delete' | 'generic';

/** Evaluates one predicate on one event; a missing method means "pass" (predicate.Funcs). */
export function evaluate(
  p: Predicate,
  kind: EventKind,
  obj: KubeObject,
  old?: KubeObject,
): boolean {
  switch (kind) {
    case 'create':
      return p.create ? p.create(obj) : true;
    case 'update':
      return p.update ? p.update({ objectOld: old ?? obj, objectNew: obj }) : true;
    case 'delete':
      return p.delete ? p.delete(obj) : true;
    case 'generic':
      return p.generic ? p.generic(obj) : true;
  }
}

/** Only updates whose metadata.generation changed: status-only writes are ignored. */
export const GenerationChangedPredicate: Predicate = {
  name: 'GenerationChanged',
  update: ({ objectOld, objectNew }) =>
    objectOld.metadata.generation !== objectNew.metadata.generation,
};

export const ResourceVersionChangedPredicate: Predicate = {
  name: 'ResourceVersionChanged',
  update: ({ objectOld, objectNew }) =>
    objectOld.metadata.resourceVersion !== objectNew.metadata.resourceVersion,
};

export const LabelChangedPredicate: Predicate = {
  name: 'LabelChanged',
  update: ({ objectOld, objectNew }) =>
    !shallowEqual(objectOld.metadata.labels, objectNew.metadata.labels),
};

export const AnnotationChangedPredicate: Predicate = {
  name: 'AnnotationChanged',
  update: ({ objectOld, objectNew }) =>
    !shallowEqual(objectOld.metadata.annotations, objectNew.metadata.annotations),
};

/** Passes events whose object satisfies fn (predicate.NewPredicateFuncs). */
export function newPredicateFuncs(fn: (obj: KubeObject) => boolean, name = 'Funcs'): Predicate {
  return {
    name,
    create: fn,
    update: (e) => fn(e.objectNew),
    delete: fn,
    generic: fn,
  };
}

export function and(...ps: Predicate[]): Predicate {
  return combine(`and(${names(ps)})`, (k, o, old) => ps.every((p) => evaluate(p, k, o, old)));
}

export function or(...ps: Predicate[]): Predicate {
  return combine(`or(${names(ps)})`, (k, o, old) => ps.some((p) => evaluate(p, k, o, old)));
}

export function not(p: Predicate): Predicate {
  return combine(`not(${p.name ?? '?'})`, (k, o, old) => !evaluate(p, k, o, old));
}

function combine(
  name: string,
  f: (k: EventKind, obj: KubeObject, old?: KubeObject) => boolean,
): Predicate {
  return {
    name,
    create: (o) => f('create', o),
    update: (e) => f('update', e.objectNew, e.objectOld),
    delete: (o) => f('delete', o),
    generic: (o) => f('generic', o),
  };
}

function names(ps: Predicate[]): string {
  return ps.map((p) => p.name ?? '?').join(',');
}

function shallowEqual(
  a: Record<string, string> | undefined,
  b: Record<string, string> | undefined,
): boolean {
  const ak = Object.keys(a ?? {});
  const bk = Object.keys(b ?? {});
  if (ak.length !== bk.length) return false;
  for (const k of ak) if ((a ?? {})[k] !== (b ?? {})[k]) return false;
  return true;
}
