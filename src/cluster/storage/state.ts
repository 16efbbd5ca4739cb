/**
 * The state of `serve --state`, as etcd keeps its data: a snapshot (the state file: every stored
 * object and the resourceVersion counter, 0600 since it holds Secrets) and a write-ahead log
 * (`<file>.wal`, see wal.ts) of the changes since. A write is acknowledged once its log record is
 * durable; the log is folded into the snapshot now and then, at start and at a clean exit. A
 * snapshot that cannot be read back is moved aside and reported, never silently dropped.
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { cleanTempFiles, writeFileAtomic, writeFileAtomicAsync } from './atomicfile';
import type { Store } from './store';
import { objectKey } from './store';
import type { KubeObject } from '../apimachinery/types';
import { WriteAheadLog, readWal } from './wal';
import type { WalRecord } from './wal';

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
  writeFileAtomic(file, JSON.stringify(state));
}

/** The write-ahead log that goes with a state file. */
export function walFileOf(file: string): string {
  return `${file}.wal`;
}

/** The snapshot with the log's records applied: the state as of the last durable write. */
export function replay(snapshot: ClusterState | undefined, records: WalRecord[]): ClusterState {
  const from = snapshot?.resourceVersion ?? 0;
  const objects = new Map<string, { storageKey: string; object: KubeObject }>();
  const id = (storageKey: string, key: string) => `${storageKey}\u0000${key}`;
  for (const o of snapshot?.objects ?? [])
    objects.set(
      id(o.storageKey, objectKey(o.object.metadata.namespace, o.object.metadata.name!)),
      o,
    );
  let rv = from;
  for (const r of records) {
    if (r.rv <= from) continue; // already in the snapshot (a crash between snapshot and truncation)
    if (r.o) objects.set(id(r.s, r.k), { storageKey: r.s, object: r.o });
    else objects.delete(id(r.s, r.k));
    rv = r.rv;
  }
  return { version: 1, resourceVersion: rv, objects: [...objects.values()] };
}

export interface Persistence {
  readonly wal: WriteAheadLog;
  /** Waits for the log, writes a final snapshot and removes the log. */
  close(): Promise<void>;
}

/** What persistence needs of a cluster: its store and the cached JSON of stored objects. */
export interface PersistedCluster {
  readonly store: Store;
  jsonOf(o: KubeObject): string;
}

/**
 * Makes every later write of `cluster` durable in `file` (snapshot) and `file.wal` (log): writes
 * the current state as the snapshot, then journals each change to the log before it is applied.
 */
export async function persist(
  cluster: PersistedCluster,
  file: string,
  opts: { compactBytes?: number } = {},
): Promise<Persistence> {
  // Each stored object's JSON is cached (its writes and reads serialized it): join those.
  const snapshot = () => {
    const d = cluster.store.dump();
    const objects = d.objects.map(
      (o) => `{"storageKey":${JSON.stringify(o.storageKey)},"object":${cluster.jsonOf(o.object)}}`,
    );
    return `{"version":1,"resourceVersion":${d.resourceVersion},"objects":[${objects.join(',')}]}`;
  };
  const initial = snapshot();
  writeFileAtomic(file, initial);
  const wal = await WriteAheadLog.open(walFileOf(file), {
    snapshotBytes: initial.length,
    serialize: (o) => cluster.jsonOf(o),
    compact: () => {
      const text = snapshot(); // synchronously: it must hold every change appended so far
      return writeFileAtomicAsync(file, text).then(() => text.length);
    },
    ...(opts.compactBytes !== undefined ? { compactBytes: opts.compactBytes } : {}),
    onFailure: (err) => console.error(`reconcile-studio: ${err.message}`),
  });
  cluster.store.setJournal(wal);
  return {
    wal,
    close: async () => {
      cluster.store.setJournal(undefined);
      await wal.close();
      writeFileAtomic(file, snapshot());
      rmSync(walFileOf(file), { force: true });
    },
  };
}

/** What restoring a state file found: the state (none when there was nothing), or why not to start. */
export type RestoreResult =
  | { ok: true; state?: ClusterState; notes: string[]; warnings: string[] }
  | { ok: false; error: string };

/**
 * Reads the snapshot and replays the write-ahead log over it, after removing the temp files of
 * writes a killed process left. A damaged log record before the end stops the start (the file and
 * byte offset are named): starting without it would silently lose acknowledged writes. `notes`
 * say what was done, `warnings` what was set aside; `serve` and the extension print them.
 */
export function restoreState(stateFile: string): RestoreResult {
  const notes: string[] = [];
  const warnings: string[] = [];
  for (const f of cleanTempFiles(stateFile))
    notes.push(`Removed ${f}, left by an interrupted save of ${stateFile}`);
  let state: ClusterState | undefined;
  const r = readStateFile(stateFile);
  if (r.kind === 'loaded') state = r.state;
  else if (r.kind === 'corrupt') {
    warnings.push(
      `the state file ${stateFile} could not be read (${r.error}); moved it to ${r.movedTo} and started empty`,
    );
  }
  const walFile = walFileOf(stateFile);
  let log;
  try {
    log = readWal(walFile);
  } catch (err) {
    return {
      ok: false,
      error: `${err instanceof Error ? err.message : String(err)}; refusing to start (move ${walFile} aside to start from the snapshot alone)`,
    };
  }
  if (log.torn) {
    warnings.push(
      `discarded a partial last record of ${walFile} (${log.torn.bytes} bytes at byte ${log.torn.offset}): the server stopped while writing it, before acknowledging it`,
    );
  }
  if (!state && !log.records.length) return { ok: true, notes, warnings };
  state = replay(state, log.records);
  notes.push(
    `Restored ${state.objects.length} objects from ${stateFile}${log.records.length ? ` (${log.records.length} changes replayed from ${walFile})` : ''}`,
  );
  return { ok: true, state, notes, warnings };
}
