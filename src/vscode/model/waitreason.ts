/**
 * Why a key waits in the work queue, in the words every view uses ("backoff 3", "requeueAfter",
 * "rate limit", "delayed"): the Work Queue tree's waiting items and the debugger's "what the
 * queue does next" say the same thing the same way. The reason itself comes from the runtime
 * (RateLimitingQueue.whenRateLimited: the token bucket, or the key's nth backoff).
 */
import type { WaitReason } from '../../runtime/delayingqueue';

export function describeWaitReason(reason: WaitReason): string {
  switch (reason.kind) {
    case 'backoff':
      return reason.attempt === undefined ? 'backoff' : `backoff ${reason.attempt}`;
    case 'requeueAfter':
      return 'requeueAfter';
    case 'rate-limit':
      return 'rate limit';
    case 'delay':
      return 'delayed';
  }
}
