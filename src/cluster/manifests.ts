/**
 * Loads YAML manifests (files or folders) into the cluster, the way `kubectl apply -f` would
 * see them: CustomResourceDefinitions and Namespaces first, so kubebuilder's
 * `config/crd/bases` and `config/samples` load in one call in any order. Malformed YAML is
 * reported with file:line; a bad object is reported with the apiserver's message and the rest
 * still load.
 */
import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import YAML from 'yaml';
import type { Cluster } from './cluster';
import { StatusError } from './apimachinery/errors';
import { isObject } from './apimachinery/patch';
import type { KubeObject } from './apimachinery/types';
import { walkFiles } from '../util/walk';

export interface LoadResult {
  applied: Array<{ kind: string; name: string; namespace?: string }>;
  errors: Array<{ file: string; line: number; message: string }>;
  /** Objects already stored and left as they were (with `keepStored`). */
  kept: Array<{ kind: string; name: string; namespace?: string }>;
}

export interface LoadOptions {
  /**
   * Leave objects that already exist as they are stored instead of applying the manifest over
   * them: after `serve --state` restored them, the stored object is the newer one.
   */
  keepStored?: boolean;
}

interface Doc {
  file: string;
  line: number;
  obj: KubeObject;
}

function yamlFiles(path: string): string[] {
  const st = statSync(path);
  if (st.isFile()) return [path];
  return walkFiles(path, (_p, e) => ['.yaml', '.yml', '.json'].includes(extname(e.name)), {
    followLinks: true,
    strict: true,
  });
}

function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** Parses every document of every file; Lists are flattened into their items. */
export function readManifests(paths: string[]): { docs: Doc[]; errors: LoadResult['errors'] } {
  const docs: Doc[] = [];
  const errors: LoadResult['errors'] = [];
  for (const root of paths) {
    let files: string[];
    try {
      files = yamlFiles(root);
    } catch (err) {
      errors.push({
        file: root,
        line: 0,
        message: err instanceof Error ? err.message : String(err),
      });
      continue;
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const d of YAML.parseAllDocuments(text)) {
        const line = lineOf(text, d.range?.[0] ?? 0);
        if (d.errors.length) {
          for (const e of d.errors)
            errors.push({
              file,
              line: e.linePos?.[0]?.line ?? line,
              message: e.message.split('\n')[0],
            });
          continue;
        }
        const v = d.toJS() as unknown;
        if (v === null || v === undefined) continue;
        if (!isObject(v) || typeof v.kind !== 'string' || typeof v.apiVersion !== 'string') {
          errors.push({
            file,
            line,
            message: "Object 'Kind' is missing or the document is not a Kubernetes object",
          });
          continue;
        }
        if (v.kind.endsWith('List') && Array.isArray(v.items)) {
          for (const it of v.items)
            if (isObject(it)) docs.push({ file, line, obj: it as KubeObject });
          continue;
        }
        if (!isObject(v.metadata)) v.metadata = {};
        docs.push({ file, line, obj: v as KubeObject });
      }
    }
  }
  return { docs, errors };
}

function rank(o: KubeObject): number {
  if (o.kind === 'CustomResourceDefinition') return 0;
  if (o.kind === 'Namespace') return 1;
  return 2;
}

/** Creates each object, or updates it if it exists (as a plain apply would). */
export function loadManifests(
  cluster: Cluster,
  paths: string[],
  opts: LoadOptions = {},
): LoadResult {
  const { docs, errors } = readManifests(paths);
  const applied: LoadResult['applied'] = [];
  const kept: LoadResult['kept'] = [];
  const sorted = docs
    .map((d, i) => ({ d, i, stored: opts.keepStored ? storedOf(cluster, d.obj) : undefined }))
    .sort((a, b) => rank(a.d.obj) - rank(b.d.obj) || a.i - b.i);
  for (const { d, stored } of sorted) {
    try {
      if (stored) {
        kept.push({
          kind: stored.kind,
          name: stored.metadata.name!,
          ...(stored.metadata.namespace ? { namespace: stored.metadata.namespace } : {}),
        });
        continue;
      }
      const out = applyOne(cluster, d.obj);
      applied.push({
        kind: out.kind,
        name: out.metadata.name!,
        ...(out.metadata.namespace ? { namespace: out.metadata.namespace } : {}),
      });
    } catch (err) {
      errors.push({
        file: d.file,
        line: d.line,
        message: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return { applied, errors, kept };
}

function storedOf(cluster: Cluster, obj: KubeObject): KubeObject | undefined {
  const name = obj.metadata?.name;
  if (!name || !obj.kind || !obj.apiVersion) return undefined;
  const t = cluster.registry.forKind(obj);
  if (!t) return undefined;
  return cluster.peek(obj, {
    ...(t.info.namespaced ? { namespace: obj.metadata.namespace || 'default' } : {}),
    name,
  });
}

function applyOne(cluster: Cluster, obj: KubeObject): KubeObject {
  const t = cluster.typeOf(obj);
  const name = obj.metadata.name;
  if (name) {
    const key = {
      ...(t.info.namespaced ? { namespace: obj.metadata.namespace || 'default' } : {}),
      name,
    };
    try {
      return cluster.patch(obj, key, obj, 'apply', {
        fieldManager: 'reconcile-studio-manifests',
        force: true,
      });
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      throw err;
    }
  }
  return cluster.create(obj, { fieldManager: 'reconcile-studio-manifests' });
}
