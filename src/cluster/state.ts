/**
 * The state file of `serve --state`: every stored object and the resourceVersion counter, saved
 * atomically (write a temp file, then rename) a moment after changes, and restored at start. A
 * file that cannot be read back is moved aside and reported, never silently dropped.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import type { Cluster } from './cluster';
import type { TimerHandle } from '../util/clock';
import type { KubeObject } from './types';

export interface ClusterState {
  version: 1;
  resourceVersion: number;
  objects: Array<{ storageKey: string; object: KubeObject }>;
}

export function isClusterState(v: unknown): v is ClusterState {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Partial<ClusterState>;
  return (
    s.version === 1 &&
    typeof s.resourceVersion === 'number' &&
    Array.isArray(s.objects) &&
    s.objects.every(
      (o) => typeof o?.storageKey === 'string' && typeof o.object?.metadata?.name === 'string',
    )
  );
}

export type LoadStateResult =
  | { kind: 'missing' }
  | { kind: 'loaded'; state: ClusterState }
  | { kind: 'corrupt'; movedTo: string; error: string };

/** Reads a state file; a corrupt one is renamed to `<file>.corrupt-<time>`. */
export function readStateFile(file: string, now = Date.now()): LoadStateResult {
  if (!existsSync(file)) return { kind: 'missing' };
  let error: string;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (isClusterState(parsed)) return { kind: 'loaded', state: parsed };
    error = 'not a reconcile-studio state file (version 1)';
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const movedTo = join(
    dirname(file),
    `${basename(file)}.corrupt-${new Date(now).toISOString().replace(/[:.]/g, '-')}`,
  );
  renameSync(file, movedTo);
  return { kind: 'corrupt', movedTo, error };
}

export function writeStateFile(file: string, state: ClusterState): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, file);
}

/** Saves the cluster `debounceMs` after the last change; returns a function that stops and flushes. */
export function autosave(cluster: Cluster, file: string, debounceMs = 250): () => void {
  let timer: TimerHandle | undefined;
  let dirty = false;
  const save = () => {
    timer = undefined;
    if (!dirty) return;
    dirty = false;
    try {
      writeStateFile(file, cluster.exportState());
    } catch (err) {
      console.error(
        `reconcile-studio: could not save state to ${file}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };
  const unsub = cluster.store.subscribe(() => {
    dirty = true;
    if (!timer) timer = cluster.clock.setTimeout(save, debounceMs);
  });
  return () => {
    unsub();
    cluster.clock.clearTimeout(timer);
    save();
  };
}
