/**
 * client-go's RateLimitingQueue: a delaying queue whose addRateLimited asks a RateLimiter how long
 * the item must wait. forget() resets the item's failure history (called on success);
 * numRequeues() says how many times it has been rate-limited since.
 */
import { DelayingQueue, type WaitReason } from './delayingqueue';
import type { QueueOptions } from './workqueue';
import { lastReasonOf, type RateLimiter } from './ratelimiter';

export class RateLimitingQueue<T, C = never> extends DelayingQueue<T, C> {
  constructor(
    opts: QueueOptions,
    readonly rateLimiter: RateLimiter<T>,
  ) {
    super(opts);
  }

  /** Adds the item once the rate limiter says it may; returns the delay chosen (ms). */
  addRateLimited(item: T): number {
    const { delayMs, reason } = this.whenRateLimited(item);
    this.addAfter(item, delayMs, reason);
    return delayMs;
  }

  /**
   * AddRateLimited's first half: asks the rate limiter how long the item must wait (counting one
   * more failure for it), and why — the token bucket, or the item's nth backoff — for the views.
   */
  whenRateLimited(item: T): { delayMs: number; reason: WaitReason } {
    const delayMs = this.rateLimiter.when(item);
    const reason: WaitReason =
      lastReasonOf(this.rateLimiter) === 'rate-limit'
        ? { kind: 'rate-limit' }
        : { kind: 'backoff', attempt: this.rateLimiter.numRequeues(item) };
    return { delayMs, reason };
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
    this.emit('forget', item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** The items the rate limiter holds failures for, if it can list them (see RateLimiter). */
  retrying(): Iterable<T> | undefined {
    return this.rateLimiter.tracked?.();
  }
}
