/**
 * client-go's RateLimitingQueue: a delaying queue whose addRateLimited asks a RateLimiter how long
 * the item must wait. forget() resets the item's failure history (called on success);
 * numRequeues() says how many times it has been rate-limited since.
 */
import { DelayingQueue } from './delayingqueue';
import type { QueueOptions } from './workqueue';
import type { ExplainingRateLimiter, RateLimiter } from './ratelimiter';

export class RateLimitingQueue<T> extends DelayingQueue<T> {
  constructor(
    opts: QueueOptions,
    readonly rateLimiter: RateLimiter<T>,
  ) {
    super(opts);
  }

  /** Adds the item once the rate limiter says it may; returns the delay chosen (ms). */
  addRateLimited(item: T): number {
    const delay = this.rateLimiter.when(item);
    const explaining = this.rateLimiter as Partial<ExplainingRateLimiter<T>>;
    const why = typeof explaining.lastReason === 'function' ? explaining.lastReason() : 'backoff';
    this.addAfter(
      item,
      delay,
      why === 'rate-limit'
        ? { kind: 'rate-limit' }
        : { kind: 'backoff', attempt: this.rateLimiter.numRequeues(item) },
    );
    return delay;
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
    this.emit('forget', item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
