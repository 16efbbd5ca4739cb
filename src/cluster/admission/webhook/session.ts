/**
 * How a synchronous write calls asynchronous webhooks. The cluster's verbs are synchronous (a
 * write is one atomic step of the store), so a write that must call a webhook is run again rather
 * than suspended: a run that reaches a call it has no answer for throws PendingCalls; the driver
 * (runWithSession) makes the calls, keeps their outcomes, and runs the write again from the start
 * against the store as it is then. A call is keyed by what it was sent, so a run whose inputs are
 * the same uses the outcome and goes on to the next call; a run whose inputs changed (another
 * write changed the old object in between) calls again, as kube-apiserver's GuaranteedUpdate
 * re-runs admission when it retries on a conflict. The last run commits with every answer in hand.
 *
 * What a write makes up before admission (uid, a generated name, creation time, allocated ports)
 * is memoised in the session so every run makes the same object. Reads that convert through a
 * webhook collect their calls instead (`collect`) and run once more when they had any.
 *
 * A write without a session (the in-process API: the built-in controllers, the TypeScript
 * runtime) calls no webhook: it cannot wait for one.
 */
import type { UserInfo } from '../../auth/authentication';
import type { CallDetails, WebhookCallRecord } from './callrecord';
import { callFailure } from './callrecord';

export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: Error };

export interface PendingCall {
  key: string;
  call: () => Promise<unknown>;
  /** For the record: `mutating`, `validating` or `conversion`, and the webhook's name. */
  kind?: string;
  webhook?: string;
  /** For the record: what the call is about (configuration, operation, object). */
  about?: CallDetails;
  /** For the record: what an answer says (an admission webhook's verdict). */
  verdict?: (value: unknown) => CallDetails;
  /** For the record: the failurePolicy a failed call is judged by. */
  failurePolicy?: 'Fail' | 'Ignore';
}

/** Thrown through a synchronous run: these calls must be made before it can go on. */
export class PendingCalls extends Error {
  constructor(readonly calls: PendingCall[]) {
    super(`${calls.length} webhook call(s) pending`);
    this.name = 'PendingCalls';
  }
}

/** The request a session serves, as an AdmissionReview describes it. */
export interface SessionRequest {
  user: UserInfo;
  /** The operation's options (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions). */
  options?: Record<string, unknown>;
  /** A read (get, list): its conversions are gathered, not needed one by one (`collect`). */
  read?: boolean;
}

/** Runs before one write gives up re-running (each run makes at least one call). */
const MAX_RUNS = 100;

export class WebhookSession {
  private readonly outcomes = new Map<string, CallOutcome>();
  private readonly memos = new Map<string, unknown>();
  private collected = new Map<string, PendingCall>();
  /** This run's webhook warnings (Warning headers) and audit annotations. */
  warnings: string[] = [];
  annotations: Record<string, string> = {};
  /** Webhook calls made for this request, for the audit record and the debugger. */
  readonly calls: WebhookCallRecord[] = [];

  constructor(readonly request: SessionRequest) {}

  /** Starts a run: what a run reports is its own. */
  beginRun(): void {
    this.warnings = [];
    this.annotations = {};
    this.collected = new Map();
  }

  /** The outcome of a call already made, or a throw that makes it. */
  need(pending: PendingCall): unknown {
    const o = this.outcomes.get(pending.key);
    if (!o) throw new PendingCalls([pending]);
    if (!o.ok) throw o.error;
    return o.value;
  }

  /** The outcome of a call already made, if any (validating webhooks are called together). */
  outcome(key: string): CallOutcome | undefined {
    return this.outcomes.get(key);
  }

  /** For reads: the outcome if made, else the call is gathered and made after the run. */
  collect(pending: PendingCall): CallOutcome | undefined {
    const o = this.outcomes.get(pending.key);
    if (!o && !this.collected.has(pending.key)) this.collected.set(pending.key, pending);
    return o;
  }

  /** The same value in every run of this request. */
  memo<T>(key: string, make: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const v = make();
    this.memos.set(key, v);
    return v;
  }

  /** A replayable random source (Math.random's values, the same sequence in every run). */
  random(key: string): () => number {
    const seq = this.memo<number[]>(`random:${key}`, () => []);
    let i = 0;
    return () => {
      if (i === seq.length) seq.push(Math.random());
      return seq[i++];
    };
  }

  /**
   * Makes the calls (in parallel) and keeps their outcomes. Each is recorded in the order it was
   * started, whenever it ends (validating webhooks are called together).
   */
  async settle(calls: PendingCall[]): Promise<void> {
    await Promise.all(
      calls.map(async (p) => {
        if (this.outcomes.has(p.key)) return;
        const start = Date.now();
        const record: WebhookCallRecord = {
          kind: p.kind ?? '',
          webhook: p.webhook ?? '',
          ...p.about,
          start,
          ms: 0,
          ok: false,
        };
        this.calls.push(record);
        try {
          const value = await p.call();
          this.outcomes.set(p.key, { ok: true, value });
          Object.assign(record, { ms: Date.now() - start, ok: true }, p.verdict?.(value));
        } catch (err) {
          const error = err instanceof Error ? err : new Error(String(err));
          this.outcomes.set(p.key, { ok: false, error });
          Object.assign(
            record,
            { ms: Date.now() - start },
            callFailure(error),
            p.failurePolicy ? { failurePolicy: p.failurePolicy } : {},
          );
        }
      }),
    );
  }

  pendingReads(): PendingCall[] {
    return [...this.collected.values()];
  }
}

/**
 * Runs `run` until it completes with every call it needs answered (see the file's comment).
 * `run` must start from the same input each time (its caller clones what a run consumes).
 */
export async function runWithSession<T>(session: WebhookSession, run: () => T): Promise<T> {
  for (let i = 0; i < MAX_RUNS; i++) {
    session.beginRun();
    let out: T;
    try {
      out = run();
    } catch (err) {
      if (!(err instanceof PendingCalls)) throw err;
      await session.settle(err.calls);
      continue;
    }
    const reads = session.pendingReads();
    if (!reads.length) return out;
    await session.settle(reads);
  }
  throw new Error(`the request still needed webhook calls after ${MAX_RUNS} runs`);
}
