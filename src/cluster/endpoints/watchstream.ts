/**
 * The sending side of one served watch: serialized events go out in order, but
 *   - only once they are durable (with `serve --state`), as etcd's watchers see only committed
 *     revisions: while the store's journal has changes in flight, events wait for its fsync;
 *   - never into an unbounded buffer: the initial events (a list's worth, or the replay from a
 *     resourceVersion) are the backlog a new watch may start with, and live events may add at
 *     most `backlogLimit` unsent bytes to what is left of it. Past that the watcher is closed as
 *     unresponsive, as kube-apiserver's cacheWatcher closes one whose buffer stays full; the client
 *     sees the stream end and watches again from its last resourceVersion (or re-lists on 410).
 */
import type { ServerResponse } from 'node:http';
import type { Store } from '../storage/store';

export interface WatchStreamOptions {
  res: ServerResponse;
  store: Store;
  /** Unsent bytes live events may add before the watcher is closed. */
  backlogLimit: number;
  /** The resource, for the log line of a forced close. */
  resource: string;
  /** Ends the watch (stops it and ends the response); called once. */
  end: () => void;
}

/** One serialized event: its text, or the pieces it is written in (a big object's event). */
/** An event as written: JSON text (in pieces, for a big one) or a protobuf frame. */
export type EventText = string | Uint8Array | readonly string[];

export class WatchStream {
  private held: Array<{ text: EventText; last: boolean }> = [];
  private holding = false;
  private closed = false;
  private initialDone = false;
  /** Unsent bytes of the initial events still allowed, once they have been written. */
  private backlog: number | undefined;

  constructor(private readonly o: WatchStreamOptions) {}

  /** Sends one serialized event; `last` ends the watch after it (an ERROR event). */
  send(text: EventText, last: boolean): void {
    if (this.closed) return;
    if (this.held.length || !this.o.store.durable) {
      this.held.push({ text, last });
      if (!this.holding) this.release();
    } else this.emit(text, last);
  }

  /** The initial events have been handed to send(): what is unsent of them now is the backlog. */
  initialSent(): void {
    this.initialDone = true;
    if (!this.held.length) this.backlog = this.o.res.writableLength;
  }

  /** The watch ended: nothing more is sent. */
  close(): void {
    this.closed = true;
    this.held = [];
  }

  private emit(text: EventText, last: boolean): void {
    if (typeof text === 'string' || text instanceof Uint8Array) this.o.res.write(text);
    else for (const piece of text) this.o.res.write(piece);
    if (last) this.finish();
    else if (this.backlog !== undefined) this.dropIfUnresponsive();
  }

  private release(): void {
    this.holding = true;
    const n = this.held.length; // the changes behind these events are in the journal already
    this.o.store.sync().then(
      () => {
        this.holding = false;
        const ready = this.held.splice(0, n);
        for (const h of ready) if (!this.closed) this.emit(h.text, h.last);
        if (this.initialDone && this.backlog === undefined)
          this.backlog = this.o.res.writableLength;
        if (this.held.length && !this.closed) this.release();
      },
      // The storage failed: end the stream; the client's re-watch and writes get the 500.
      () => this.finish(),
    );
  }

  private dropIfUnresponsive(): void {
    const unsent = this.o.res.writableLength;
    this.backlog = Math.min(this.backlog!, unsent);
    if (unsent - this.backlog <= this.o.backlogLimit) return;
    console.warn(
      `fake cluster: forcing ${this.o.resource} watcher close due to unresponsiveness: ${unsent} bytes unsent`,
    );
    this.finish();
    this.o.res.destroy(); // drop what is buffered: it is what holds the memory
  }

  private finish(): void {
    if (this.closed) return;
    this.close();
    this.o.end();
  }
}
