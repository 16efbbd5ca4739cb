/**
 * Scenarios as data: YAML files of short request scripts (raw HTTP, kubectl), and matrix files
 * whose request templates are expanded over representative kinds. A step's answer is compared
 * between the two clusters unless the step says which parts to compare.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export type Part = 'status' | 'body' | 'headers';

export interface Step {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON (or YAML for apply patches), a string as is. */
  body?: unknown;
  /** Send a captured object instead of `body`, with `merge` merged into it. */
  bodyFrom?: string;
  merge?: unknown;
  /** PATCH shorthand for the Content-Type: merge, json, strategic, apply. */
  type?: 'merge' | 'json' | 'strategic' | 'apply';
  /** A watch: read this many events (default: until timeoutMs). */
  events?: number;
  timeoutMs?: number;
  /** Name → dotted path in the answer's body, kept per cluster for later `{{name}}`. */
  capture?: Record<string, string>;
  /** Poll `path` until the dotted path `until` equals `equals` (or exists), then compare the answer. */
  until?: string;
  equals?: unknown;
  kubectl?: string[];
  stdin?: string;
  sleep?: number;
  /** What to compare: false for a step that only sets up. Default: status, body and headers. */
  compare?: Part[] | false;
}

export interface Scenario {
  name: string;
  /** The file it comes from, for the report. */
  file: string;
  steps: Step[];
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'WATCH', 'WAIT'] as const;

/** `GET: /path` → { method: GET, path }; WATCH is a GET read as a stream, WAIT a GET polled. */
function expandShorthand(raw: Record<string, unknown>): Step {
  const step: Record<string, unknown> = { ...raw };
  for (const m of METHODS) {
    if (typeof raw[m] === 'string') {
      step.path = raw[m];
      step.method = m === 'WATCH' || m === 'WAIT' ? 'GET' : m;
      if (m === 'WATCH' && step.events === undefined && step.timeoutMs === undefined)
        step.timeoutMs = 3000;
      if (m === 'WAIT' && step.until === undefined)
        throw new Error(`WAIT ${String(raw[m])} needs until`);
      delete step[m];
    }
  }
  if (raw.WATCH !== undefined) step.watch = true;
  return step as Step;
}

interface MatrixKind {
  name: string;
  collection: string;
  manifest: Record<string, unknown>;
  mutate?: Record<string, unknown>;
  /** Templates this kind is not run through, each with why in the file's comments. */
  skip?: string[];
  /**
   * What a controller writes after the kind's create (a dotted path, and the value it reaches):
   * every template waits for it after creating the object, so no step races that write.
   */
  settled?: { until: string; equals?: unknown };
  /**
   * A controller completes the kind's deletion (it removes a finalizer the apiserver or an
   * admission plugin added): every template waits for the object to be gone after deleting it,
   * so no step races that controller.
   */
  deletionSettles?: boolean;
}

interface MatrixFile {
  kinds: MatrixKind[];
  templates: { name: string; steps: Record<string, unknown>[] }[];
}

export function deepMerge(base: unknown, over: unknown): unknown {
  if (!over || typeof over !== 'object' || Array.isArray(over))
    return over === undefined ? base : over;
  if (!base || typeof base !== 'object' || Array.isArray(base)) return over;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(out[k], v);
  return out;
}

/** Replaces the matrix's $manifest / $mutated placeholders and {{collection}}-like names, deeply. */
function instantiate(value: unknown, kind: MatrixKind): unknown {
  const manifest = deepMerge(kind.manifest, {
    metadata: { name: 'x-{{ns}}', labels: { diff: '{{ns}}' } },
  });
  if (value === '$manifest') return manifest;
  if (value === '$mutated')
    return deepMerge(manifest, kind.mutate ?? { metadata: { labels: { mutated: 'yes' } } });
  if (value === '$mutation') return kind.mutate ?? { metadata: { labels: { mutated: 'yes' } } };
  if (typeof value === 'string') {
    return value
      .replaceAll('{{collection}}', kind.collection)
      .replaceAll('{{object}}', `${kind.collection}/x-{{ns}}`)
      .replaceAll('{{name}}', 'x-{{ns}}')
      .replaceAll('{{kind}}', String(kind.manifest.kind))
      .replaceAll('{{apiVersion}}', String(kind.manifest.apiVersion));
  }
  if (Array.isArray(value)) return value.map((v) => instantiate(v, kind));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, instantiate(v, kind)]));
  }
  return value;
}

function expandMatrix(file: string, m: MatrixFile): Scenario[] {
  const out: Scenario[] = [];
  for (const kind of m.kinds) {
    for (const t of m.templates) {
      if (kind.skip?.includes(t.name)) continue;
      out.push({
        name: `${kind.name}/${t.name}`,
        file,
        steps: t.steps.flatMap((s) => {
          const step = expandShorthand(instantiate(s, kind) as Record<string, unknown>);
          // A server-side apply of the manifest creates the object as a POST does.
          const creates =
            s.body === '$manifest' &&
            (s.POST === '{{collection}}' || (typeof s.PATCH === 'string' && s.type === 'apply'));
          const deletes = typeof s.DELETE === 'string' && !s.DELETE.includes('dryRun');
          const wait = (until: Record<string, unknown>) =>
            expandShorthand({ WAIT: instantiate('{{object}}', kind), ...until, compare: false });
          if (creates && kind.settled) return [step, wait(kind.settled)];
          if (deletes && kind.deletionSettles)
            return [step, wait({ until: 'code', equals: 404, timeoutMs: 30000 })];
          return [step];
        }),
      });
    }
  }
  return out;
}

/** Every scenario of the YAML files in `dir`, in file order then written order. */
export function loadScenarios(dir: string): Scenario[] {
  const out: Scenario[] = [];
  for (const f of readdirSync(dir)
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()) {
    const doc = parse(readFileSync(join(dir, f), 'utf8'), { merge: true }) as
      MatrixFile | { scenarios: { name: string; steps: Record<string, unknown>[] }[] };
    if ('kinds' in doc) out.push(...expandMatrix(f, doc));
    else {
      for (const s of doc.scenarios) {
        // A YAML alias to a list of steps (shared setup) is spliced in place.
        out.push({
          name: s.name,
          file: f,
          steps: (s.steps.flat() as Record<string, unknown>[]).map(expandShorthand),
        });
      }
    }
  }
  return out;
}
