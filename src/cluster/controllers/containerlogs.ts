/**
 * The fake node's container logs, as the container runtime keeps them under /var/log/pods and
 * the kubelet reads them back (kuberuntime's ReadLogs): one log per container ID, each line with
 * the time it was written; `tailLines`, `since`, `timestamps` and `limitBytes` applied in the
 * kubelet's order; a follower sees new lines until the container ends. A log keeps its last
 * MAX_LINES lines (the runtime rotates its files too) and goes away with its pod.
 */

/** Lines a container's log keeps, oldest dropped first (as log rotation drops old files). */
export const MAX_LINES = 10_000;

export interface LogLine {
  /** Epoch milliseconds. */
  time: number;
  text: string;
}

export interface ReadLogOptions {
  tailLines?: number;
  /** Epoch milliseconds: lines written before are left out. */
  since?: number;
  timestamps?: boolean;
  limitBytes?: number;
}

interface ContainerLog {
  lines: LogLine[];
  ended: boolean;
  followers: Set<Follower>;
}

interface Follower {
  line(l: LogLine): void;
  end(): void;
}

/** The kubelet's timestamp layout (RFC3339Nano with a fixed nine-digit fraction, UTC). */
export function logTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/**
 * A line of a container's own output in logfmt with its time (`time="…" level=info msg="…"
 * k=v …`), as many programs write theirs: what the fake containers print.
 */
export function logfmtLine(
  ms: number,
  msg: string,
  fields: Record<string, string | number>,
): string {
  const rest = Object.entries(fields)
    .map(([k, v]) => ` ${k}=${typeof v === 'string' && /[\s"=]/.test(v) ? JSON.stringify(v) : v}`)
    .join('');
  return `time="${new Date(ms).toISOString()}" level=info msg=${JSON.stringify(msg)}${rest}`;
}

/** One line as the kubelet writes it to the client: `timestamps` prefixes its time. */
function render(l: LogLine, timestamps: boolean | undefined): Buffer {
  return Buffer.from(`${timestamps ? `${logTimestamp(l.time)} ` : ''}${l.text}\n`);
}

/**
 * Passes at most `limit` bytes in all, then says it is full (the kubelet's LimitWriter: a byte
 * count, so a line — even a character — may be cut).
 */
class ByteLimit {
  private left: number;
  constructor(limit: number | undefined) {
    this.left = limit ?? Infinity;
  }
  get full(): boolean {
    return this.left <= 0;
  }
  take(b: Buffer): Buffer {
    const out = b.length <= this.left ? b : b.subarray(0, this.left);
    this.left -= out.length;
    return out;
  }
}

export class ContainerLogs {
  private readonly logs = new Map<string, ContainerLog>();

  private log(id: string): ContainerLog {
    let l = this.logs.get(id);
    if (!l) {
      l = { lines: [], ended: false, followers: new Set() };
      this.logs.set(id, l);
    }
    return l;
  }

  /** The container wrote a line at `time`. */
  write(id: string, time: number, text: string): void {
    const l = this.log(id);
    if (l.ended) return;
    const line = { time, text };
    l.lines.push(line);
    if (l.lines.length > MAX_LINES) l.lines.splice(0, l.lines.length - MAX_LINES);
    for (const f of [...l.followers]) f.line(line);
  }

  /** The container stopped: followers end; the log stays readable until `remove`. */
  end(id: string): void {
    const l = this.logs.get(id);
    if (!l) return;
    l.ended = true;
    for (const f of [...l.followers]) f.end();
    l.followers.clear();
  }

  /** The container is gone (its pod was deleted). */
  remove(id: string): void {
    this.end(id);
    this.logs.delete(id);
  }

  has(id: string): boolean {
    return this.logs.has(id);
  }

  /** What the log holds now, as the kubelet sends it without `follow`. */
  read(id: string, opts: ReadLogOptions = {}): Buffer {
    const limit = new ByteLimit(opts.limitBytes);
    const out: Buffer[] = [];
    for (const l of this.selected(id, opts)) {
      out.push(limit.take(render(l, opts.timestamps)));
      if (limit.full) break;
    }
    return Buffer.concat(out);
  }

  /**
   * Sends what the log holds, then each new line until the container ends, `limitBytes` is
   * reached, or the returned function is called; `done` is called once, when the stream ends.
   */
  follow(
    id: string,
    opts: ReadLogOptions,
    send: (chunk: Buffer) => void,
    done: () => void,
  ): () => void {
    // No log (a container this node never ran): nothing to send, and no entry to leave behind.
    const l = this.logs.get(id) ?? { lines: [], ended: true, followers: new Set<Follower>() };
    const limit = new ByteLimit(opts.limitBytes);
    let finished = false;
    const follower: Follower = {
      line: (line) => {
        send(limit.take(render(line, opts.timestamps)));
        if (limit.full) follower.end();
      },
      end: () => {
        if (finished) return;
        finished = true;
        l.followers.delete(follower);
        done();
      },
    };
    for (const line of this.selected(id, opts)) {
      send(limit.take(render(line, opts.timestamps)));
      if (limit.full) break;
    }
    if (limit.full || l.ended) follower.end();
    else l.followers.add(follower);
    return () => {
      if (finished) return;
      finished = true;
      l.followers.delete(follower);
    };
  }

  /** The last `tailLines` lines, then those written at or after `since`. */
  private selected(id: string, opts: ReadLogOptions): LogLine[] {
    const lines = this.logs.get(id)?.lines ?? [];
    const tail =
      opts.tailLines === undefined
        ? lines
        : lines.slice(Math.max(0, lines.length - opts.tailLines));
    return opts.since === undefined ? tail : tail.filter((l) => l.time >= opts.since!);
  }
}
