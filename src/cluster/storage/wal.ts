/**
 * The write-ahead log of `serve --state`, etcd's WAL in miniature. kube-apiserver answers a write
 * only once etcd has made it durable; so here every change is appended as one JSON line, and the
 * server answers once fdatasync has returned for it. Group commit, as etcd batches proposals: the
 * lines appended while an fsync is in flight go out together in the next write + fsync, so many
 * concurrent writes share one disk flush.
 *
 * Now and then the log is compacted into the snapshot (the state file) and emptied. Replay skips
 * records the snapshot already holds; a torn last line (a crash mid-append) is dropped and
 * reported, a damaged line before the end is an error naming the file and byte offset.
 *
 * When the disk refuses a write or an fsync, the log fails for good: the writes waiting on it and
 * every later one are refused with a 500, never acknowledged without being durable.
 */
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncDir } from './atomicfile';
import { newInternal } from '../apimachinery/errors';
import type { StatusError } from '../apimachinery/errors';
import type { Change, Journal } from './store';
import type { KubeObject } from '../apimachinery/types';

/** One line of the log: a stored object (`o`), or a deletion (no `o`). */
export interface WalRecord {
  rv: number;
  /** Storage key of the resource (group/resource). */
  s: string;
  /** Object key (namespace/name). */
  k: string;
  o?: KubeObject;
}

export class WalCorruptError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    detail: string,
  ) {
    super(`${file}: corrupt write-ahead log record at byte ${offset}: ${detail}`);
  }
}

export interface WalContents {
  records: WalRecord[];
  /** A partial last line (the process died while appending it), discarded. */
  torn?: { offset: number; bytes: number };
}

function isRecord(v: unknown): v is WalRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Partial<WalRecord>;
  return (
    Number.isInteger(r.rv) &&
    typeof r.s === 'string' &&
    typeof r.k === 'string' &&
    (r.o === undefined || (typeof r.o === 'object' && r.o !== null))
  );
}

/** Reads a log; a missing file is an empty log. Throws WalCorruptError for a damaged record. */
export function readWal(file: string): WalContents {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [] };
    throw err;
  }
  const records: WalRecord[] = [];
  let off = 0;
  let lastRv = -Infinity;
  while (off < buf.length) {
    const nl = buf.indexOf(0x0a, off);
    if (nl < 0) return { records, torn: { offset: off, bytes: buf.length - off } };
    let rec: unknown;
    try {
      rec = JSON.parse(buf.toString('utf8', off, nl));
    } catch (err) {
      throw new WalCorruptError(file, off, err instanceof Error ? err.message : String(err));
    }
    if (!isRecord(rec)) throw new WalCorruptError(file, off, 'not a write-ahead log record');
    if (rec.rv <= lastRv)
      throw new WalCorruptError(file, off, `resourceVersion ${rec.rv} does not follow ${lastRv}`);
    lastRv = rec.rv;
    records.push(rec);
    off = nl + 1;
  }
  return { records };
}

export interface WalOptions {
  /** The JSON of a stored object (the cluster's cached serialization). */
  serialize: (o: KubeObject) => string;
  /**
   * Writes a snapshot of everything committed so far and resolves with its size in bytes. It must
   * take the snapshot synchronously, before its first await: the log is emptied once it resolves.
   */
  compact: () => Promise<number>;
  /** Compact once the log is larger than this and than the last snapshot. Default 64 MiB. */
  compactBytes?: number;
  /** The size of the snapshot the log starts from. */
  snapshotBytes?: number;
  /** Told once, when the log fails. */
  onFailure?: (err: Error) => void;
}

interface Batch {
  lines: string[];
  waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }>;
}

const newBatch = (): Batch => ({ lines: [], waiters: [] });

export class WriteAheadLog implements Journal {
  /** Lines appended and not yet being written. */
  private open = newBatch();
  /** The batch being written and fsynced. */
  private inFlight: Batch | undefined;
  private running: Promise<void> | undefined;
  private failure: StatusError | undefined;
  private closed = false;
  private bytes = 0;
  private snapshotBytes = 0;
  private readonly compactBytes: number;

  private constructor(
    readonly file: string,
    private readonly fh: FileHandle,
    private readonly opts: WalOptions,
  ) {
    this.compactBytes = opts.compactBytes ?? 64 * 1024 * 1024;
    this.snapshotBytes = opts.snapshotBytes ?? 0;
  }

  /** Opens (creating, mode 0600) the log at `file` for appending, emptied: call after replaying it and snapshotting. */
  static async open(file: string, opts: WalOptions): Promise<WriteAheadLog> {
    const fh = await open(file, 'a', 0o600);
    await fh.chmod(0o600);
    await fh.truncate(0);
    await fh.sync();
    fsyncDir(dirname(file)); // the log's own directory entry, if it was just created
    return new WriteAheadLog(file, fh, opts);
  }

  /** The error the log failed with, if it did. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Journal: queues the change's record; throws (refusing the write) once the log has failed. */
  append(c: Change, key: string): void {
    if (this.failure) throw this.failure;
    if (this.closed) throw newInternal(`the write-ahead log ${this.file} is closed`);
    const head = `{"rv":${c.rv},"s":${JSON.stringify(c.storageKey)},"k":${JSON.stringify(key)}`;
    this.open.lines.push(
      c.type === 'DELETED' ? `${head}}\n` : `${head},"o":${this.opts.serialize(c.object)}}\n`,
    );
    if (!this.running) this.running = Promise.resolve().then(() => this.run());
  }

  /** True when every change appended so far is durable (and the log has not failed). */
  get idle(): boolean {
    return !this.failure && !this.open.lines.length && !this.inFlight;
  }

  /** Resolves once every change appended so far is durable; rejects if the log failed. */
  sync(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const batch = this.open.lines.length ? this.open : this.inFlight;
    if (!batch) return Promise.resolve();
    return new Promise((resolve, reject) => batch.waiters.push({ resolve, reject }));
  }

  /** Makes everything appended durable, then closes the file. Later appends are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.running) await this.running;
    await this.fh.close();
    if (this.failure) throw this.failure;
  }

  private async run(): Promise<void> {
    try {
      while (this.open.lines.length && !this.failure) {
        const batch = this.open;
        this.open = newBatch();
        this.inFlight = batch;
        try {
          const buf = Buffer.from(batch.lines.join(''));
          let off = 0;
          while (off < buf.length) off += (await this.fh.write(buf, off)).bytesWritten;
          await this.fh.datasync();
          this.bytes += buf.length;
        } catch (err) {
          this.fail(err, batch);
          return;
        }
        this.inFlight = undefined;
        for (const w of batch.waiters) w.resolve();
        if (this.bytes > Math.max(this.compactBytes, this.snapshotBytes)) await this.compact();
      }
    } finally {
      this.inFlight = undefined;
      this.running = undefined;
    }
  }

  /**
   * Snapshots and empties the log. The snapshot holds every change appended before it was taken,
   * so the open batch's waiters are durable once it is; lines appended meanwhile stay queued.
   */
  private async compact(): Promise<void> {
    const covered = this.open;
    this.open = newBatch();
    this.inFlight = covered;
    try {
      this.snapshotBytes = await this.opts.compact();
      await this.fh.truncate(0);
      await this.fh.sync();
      this.bytes = 0;
    } catch (err) {
      this.fail(err, covered);
      return;
    }
    this.inFlight = undefined;
    for (const w of covered.waiters) w.resolve();
  }

  private fail(err: unknown, batch: Batch): void {
    const message = err instanceof Error ? err.message : String(err);
    this.failure = newInternal(
      `the write-ahead log ${this.file} could not be written (${message}); no further writes are accepted because they could not be made durable`,
    );
    for (const w of [...batch.waiters, ...this.open.waiters]) w.reject(this.failure);
    this.open = newBatch();
    this.opts.onFailure?.(this.failure);
  }
}
