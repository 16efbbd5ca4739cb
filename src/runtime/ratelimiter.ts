/**
 * Rate limiters as client-go's util/workqueue/default_rate_limiters.go has them. A limiter answers
 * "how long should this item wait before it is processed again?" and remembers per-item failures
 * until forget() is called. Every limiter reads time from a Clock so backoff is exact on the
 * virtual clock.
 */
import type { Clock } from '../util/clock';

export interface RateLimiter<T> {
  /** Delay before the item may be processed again; records one more failure for it. */
  when(item: T): number;
  /** Stop tracking the item (success): its next failure starts from the base delay again. */
  forget(item: T): void;
  /** How many times the item has been rate-limited since it was last forgotten. */
  numRequeues(item: T): number;
  /**
   * The items it holds failures for (numRequeues > 0), or undefined when it cannot list them. Not
   * in client-go: the queue's views show the items being retried without remembering every item
   * ever queued.
   */
  tracked?(): Iterable<T> | undefined;
}

/** Why a limiter chose its delay, so the UI can say "backoff 4" or "rate limit". */
export type LimitReason = 'backoff' | 'rate-limit';

/** Limiters that can say which rule produced the last delay. */
export interface ExplainingRateLimiter<T> extends RateLimiter<T> {
  lastReason(): LimitReason;
}

/**
 * base * 2^failures, capped at max (client-go ItemExponentialFailureRateLimiter). The first
 * failure waits `base`; 5 ms, 10 ms, 20 ms, ... up to the cap. Overflow of the exponent goes
 * straight to the cap, as in Go.
 */
export class ItemExponentialFailureRateLimiter<T> implements ExplainingRateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    readonly baseDelayMs: number,
    readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseDelayMs * Math.pow(2, exp);
    if (!Number.isFinite(backoff) || backoff > this.maxDelayMs) return this.maxDelayMs;
    return backoff;
  }

  forget(item: T): void {
    // Most forgets are of items that never failed: an empty map is not worth hashing the key for.
    if (this.failures.size) this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }

  tracked(): Iterable<T> {
    return this.failures.keys();
  }

  lastReason(): LimitReason {
    return 'backoff';
  }
}

/** fastDelay for the first maxFastAttempts failures, slowDelay after (ItemFastSlowRateLimiter). */
export class ItemFastSlowRateLimiter<T> implements ExplainingRateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    readonly fastDelayMs: number,
    readonly slowDelayMs: number,
    readonly maxFastAttempts: number,
  ) {}

  when(item: T): number {
    const n = (this.failures.get(item) ?? 0) + 1;
    this.failures.set(item, n);
    return n <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  forget(item: T): void {
    if (this.failures.size) this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }

  tracked(): Iterable<T> {
    return this.failures.keys();
  }

  lastReason(): LimitReason {
    return 'backoff';
  }
}

/**
 * A token bucket with golang.org/x/time/rate semantics: `burst` tokens to start with, refilled at
 * `qps` per second, and Reserve() always succeeds by going into debt — the delay is the time until
 * the debt is repaid. Tokens are fractional, so 10 qps means exactly one token per 100 ms.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly clock: Clock,
    readonly qps: number,
    readonly burst: number,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Reserve n tokens now; returns how long the caller must wait before acting (ms). */
  reserve(n = 1): number {
    const now = this.clock.now();
    const last = Math.min(this.last, now);
    const elapsedMs = now - last;
    let tokens = Math.min(this.burst, this.tokens + (elapsedMs / 1000) * this.qps);
    tokens -= n;
    const waitMs = tokens < 0 ? (-tokens / this.qps) * 1000 : 0;
    this.last = now;
    this.tokens = tokens;
    return waitMs;
  }

  /** Tokens available now (negative while in debt). */
  available(): number {
    const elapsedMs = Math.max(0, this.clock.now() - this.last);
    return Math.min(this.burst, this.tokens + (elapsedMs / 1000) * this.qps);
  }
}

/**
 * An overall (not per-item) limit: every item draws from one bucket (BucketRateLimiter). It does
 * not track items, so forget() is a no-op and numRequeues() is always 0, as in client-go.
 */
export class BucketRateLimiter<T> implements ExplainingRateLimiter<T> {
  readonly bucket: TokenBucket;

  constructor(clock: Clock, qps: number, burst: number) {
    this.bucket = new TokenBucket(clock, qps, burst);
  }

  when(_item: T): number {
    return this.bucket.reserve(1);
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }

  tracked(): Iterable<T> {
    return [];
  }

  lastReason(): LimitReason {
    return 'rate-limit';
  }
}

/**
 * The worst of several limiters (MaxOfRateLimiter): every limiter is consulted (so each keeps its
 * own bookkeeping), the longest delay wins, and numRequeues is the largest any of them reports.
 */
export class MaxOfRateLimiter<T> implements ExplainingRateLimiter<T> {
  private reason: LimitReason = 'backoff';

  constructor(readonly limiters: RateLimiter<T>[]) {}

  when(item: T): number {
    let max = 0;
    let reason: LimitReason = 'backoff';
    for (const l of this.limiters) {
      const d = l.when(item);
      if (d > max) {
        max = d;
        reason = lastReasonOf(l);
      }
    }
    this.reason = reason;
    return max;
  }

  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }

  /** Every item any of them tracks, when each can list its own. */
  tracked(): Iterable<T> | undefined {
    const all = new Set<T>();
    for (const l of this.limiters) {
      const items = l.tracked?.();
      if (!items) return undefined;
      for (const item of items) all.add(item);
    }
    return all;
  }

  lastReason(): LimitReason {
    return this.reason;
  }
}

/** Why `l` chose its last delay; a limiter that cannot say is taken for a backoff. */
export function lastReasonOf<T>(l: RateLimiter<T>): LimitReason {
  const e = l as Partial<ExplainingRateLimiter<T>>;
  return typeof e.lastReason === 'function' ? e.lastReason() : 'backoff';
}

/** controller-runtime's default: per-item exponential 5 ms..1000 s, max'd with 10 qps / burst 100. */
export const DEFAULT_BASE_DELAY_MS = 5;
export const DEFAULT_MAX_DELAY_MS = 1000 * 1000;
export const DEFAULT_QPS = 10;
export const DEFAULT_BURST = 100;

export function defaultControllerRateLimiter<T>(clock: Clock): MaxOfRateLimiter<T> {
  return new MaxOfRateLimiter<T>([
    new ItemExponentialFailureRateLimiter<T>(DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS),
    new BucketRateLimiter<T>(clock, DEFAULT_QPS, DEFAULT_BURST),
  ]);
}
