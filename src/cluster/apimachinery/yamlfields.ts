/**
 * Where a field the apiserver names (`spec.replicas`, `spec.tags[0]`, `metadata.labels[app]`,
 * structured-merge-diff's `.metadata.foo`) sits in the YAML a person wrote: the text range of its
 * node, so an error can be shown on its line. Also the problems of a refused write (a Status and
 * its causes) placed in the document that was sent.
 */
import { isMap, isScalar, isSeq, type Document, type Node, type Pair } from 'yaml';
import type { Status } from './types';

/** Offsets into the whole text, end exclusive. */
export interface TextRange {
  start: number;
  end: number;
}

export interface YamlProblem {
  /** The field the problem is about, as the apiserver names it ('' for the whole document). */
  path: string;
  /** The apiserver's own wording, field first (`spec.replicas: Invalid value: ...`). */
  message: string;
  severity: 'error' | 'warning';
  range: TextRange;
}

type Step = string | number;

/**
 * field.Path's rendering split into steps: `.`-separated names, `[n]` list indexes and `[key]`
 * map keys. A leading `.` (structured-merge-diff, a scale path) is dropped.
 */
export function fieldSteps(path: string): Step[] {
  const steps: Step[] = [];
  const re = /\[([^\]]*)\]|([^.[\]]+)/g;
  for (const m of path.replace(/^\./, '').matchAll(re)) {
    if (m[1] !== undefined) steps.push(/^\d+$/.test(m[1]) ? Number(m[1]) : m[1]);
    else steps.push(m[2]!);
  }
  return steps;
}

/**
 * The range to mark for `path` in `doc`: a scalar value itself; a map or list by its key (its
 * first line when it has none); a field that is not there (a Required value) by the key of the
 * nearest enclosing field that is. Map keys containing dots (`app.kubernetes.io/name`, which
 * kube-openapi writes unbracketed) are matched by joining steps. `mark: 'key'` marks a field by its
 * key even when its value is a scalar (a field the schema does not declare). `named`: a value the
 * error names; when the field is a map, the entry whose key or value it is (ObjectMeta's label
 * and annotation errors name the map and the offending key or value).
 */
export function rangeOfField(
  doc: Document,
  path: string,
  text: string,
  mark: 'value' | 'key' = 'value',
  named?: string,
): TextRange {
  const steps = fieldSteps(path);
  let node: unknown = doc.contents;
  let key: Node | undefined;
  let i = 0;
  for (; i < steps.length && node; i++) {
    const step = steps[i]!;
    if (isSeq(node) && typeof step === 'number') {
      const item: unknown = node.items[step];
      if (!item) break;
      node = item;
      key = undefined;
      continue;
    }
    if (!isMap(node)) break;
    const found = findPair(node.items as Pair[], steps, i);
    if (!found) break;
    i = found.last;
    node = found.pair.value ?? undefined;
    key = found.pair.key as Node;
  }
  if (mark === 'key' && i >= steps.length && key?.range)
    return { start: key.range[0], end: key.range[1] };
  if (named !== undefined && i >= steps.length && isMap(node)) {
    for (const p of node.items as Pair[])
      for (const n of [p.key, p.value])
        if (isScalar(n) && n.range && String(n.value) === named)
          return { start: n.range[0], end: n.range[1] };
  }
  return markOf(node, key, doc, text);
}

/** Where a field error stands: its field, narrowed to the map entry its `Invalid value: "x"` names. */
export function rangeOfError(
  doc: Document,
  path: string,
  message: string,
  text: string,
): TextRange {
  const quoted = /^Invalid value: ("(?:[^"\\]|\\.)*")/.exec(message)?.[1];
  let named: string | undefined;
  try {
    named = quoted === undefined ? undefined : (JSON.parse(quoted) as string);
  } catch {
    named = undefined;
  }
  return rangeOfField(doc, path, text, 'value', named);
}

/** The pair whose key is steps[i], or steps[i..j] joined by dots (a dotted key). */
function findPair(
  pairs: Pair[],
  steps: Step[],
  i: number,
): { pair: Pair; last: number } | undefined {
  let name = '';
  for (let j = i; j < steps.length; j++) {
    const s = steps[j]!;
    name = j === i ? String(s) : `${name}.${String(s)}`;
    const pair = pairs.find((p) => isScalar(p.key) && String(p.key.value) === name);
    if (pair) return { pair, last: j };
  }
  return undefined;
}

function markOf(node: unknown, key: Node | undefined, doc: Document, text: string): TextRange {
  if (isScalar(node) && node.range && node.range[1] > node.range[0])
    return { start: node.range[0], end: node.range[1] };
  if (key?.range) return { start: key.range[0], end: key.range[1] };
  const r = (node as Node | undefined)?.range ?? doc.contents?.range ?? doc.range;
  return r ? firstLine(text, r[0], r[1]) : { start: 0, end: 0 };
}

/** From start to the end of its line (not past end), so a block is marked by its first line. */
function firstLine(text: string, start: number, end: number): TextRange {
  const nl = text.indexOf('\n', start);
  const stop = nl === -1 ? end : Math.min(nl, end);
  return { start, end: Math.max(stop, start) };
}

/**
 * The problems of a write the cluster refused, in the document that was sent: each cause of a 422
 * on its field (worded as the Status message words it, `field: message`); a Status without causes
 * once, on the field it is about — the path structured-merge-diff puts in its message, the
 * resourceVersion a 409 Conflict is about, the name or namespace a 409 or 404 names — or the
 * document's first line.
 */
export function problemsOfStatus(doc: Document, text: string, status: Status): YamlProblem[] {
  const causes = (status.details?.causes ?? []).filter((c) => c.message || c.field);
  if (causes.length)
    return causes.map((c) => {
      const path = c.field ?? '';
      return {
        path,
        message: path ? `${path}: ${c.message ?? ''}` : (c.message ?? ''),
        severity: 'error',
        range: rangeOfError(doc, path, c.message ?? '', text),
      };
    });
  const path = statusPath(doc, status);
  const mark = / field not declared in schema$/.test(status.message) ? 'key' : 'value';
  return [
    {
      path,
      message: status.message,
      severity: 'error',
      range: rangeOfField(doc, path, text, mark),
    },
  ];
}

function statusPath(doc: Document, status: Status): string {
  const smd = /\): (\.[^\s:]+): /.exec(status.message);
  if (smd) return smd[1]!;
  const has = (p: string) => doc.hasIn(fieldSteps(p));
  if (status.reason === 'Conflict' && has('metadata.resourceVersion'))
    return 'metadata.resourceVersion';
  if (status.details?.kind === 'namespaces' && has('metadata.namespace'))
    return 'metadata.namespace';
  if (status.reason === 'AlreadyExists' || status.reason === 'Conflict') return 'metadata.name';
  return '';
}

/** A document's YAML syntax errors, each where the parser stopped (the message without its line and column). */
export function syntaxProblems(doc: Document): YamlProblem[] {
  return doc.errors.map((e) => ({
    path: '',
    message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
    severity: 'error',
    range: { start: e.pos[0], end: Math.max(e.pos[1], e.pos[0] + 1) },
  }));
}

/**
 * A write's error as the Status the apiserver sent: the embedded cluster's StatusError carries it
 * as `status`, @kubernetes/client-node's ApiException as its `body` (parsed or JSON text).
 */
export function statusOfError(err: unknown): Status | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { status?: unknown; body?: unknown };
  for (const candidate of [e.status, e.body]) {
    let v = candidate;
    if (typeof v === 'string') {
      try {
        v = JSON.parse(v) as unknown;
      } catch {
        continue;
      }
    }
    if (v && typeof v === 'object' && (v as { kind?: unknown }).kind === 'Status')
      return v as Status;
  }
  return undefined;
}
