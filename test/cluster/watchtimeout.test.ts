/**
 * When watches end, as kube-apiserver ends them: at `timeoutSeconds`, or — when a client gives
 * none (the Python client's `Watch().stream` without `timeout_seconds`, kubeclient) — after a
 * random 30 to 60 minutes (`--min-request-timeout` × [1, 2)), with a bookmark 2 s before the end
 * for clients that allow bookmarks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MIN_REQUEST_TIMEOUT_SECONDS,
  watchTimeoutSeconds,
} from '../../src/cluster/apimachinery/listoptions';
import { VirtualClock } from '../../src/util/clock';
import { served } from './http';

const q = (s: string) => new URLSearchParams(s);

describe('watchTimeoutSeconds', () => {
  it('is minRequestTimeout × (1 + random) without timeoutSeconds: 30 to 60 minutes by default', () => {
    assert.equal(MIN_REQUEST_TIMEOUT_SECONDS, 1800);
    assert.equal(watchTimeoutSeconds(q('watch=1'), { random: () => 0 }), 1800);
    assert.equal(watchTimeoutSeconds(q('watch=1&timeoutSeconds=0'), { random: () => 0.5 }), 2700);
    assert.equal(watchTimeoutSeconds(q(''), { minRequestTimeout: 10, random: () => 0.25 }), 12.5);
  });

  it('is the timeoutSeconds asked for, capped by the server maximum', () => {
    assert.equal(watchTimeoutSeconds(q('timeoutSeconds=7'), { random: () => 0 }), 7);
    assert.equal(watchTimeoutSeconds(q('timeoutSeconds=7'), { max: 5 }), 5);
    assert.equal(watchTimeoutSeconds(q(''), { max: 5, random: () => 0 }), 5);
  });

  it('never ends a watch without timeoutSeconds when minRequestTimeout is 0', () => {
    assert.equal(watchTimeoutSeconds(q(''), { minRequestTimeout: 0 }), undefined);
  });
});

describe('a watch over HTTP', () => {
  for (const [what, path, minRequestTimeoutSeconds] of [
    ['without timeoutSeconds ends within 2 × min-request-timeout', '', 60],
    ['with timeoutSeconds ends then', '&timeoutSeconds=90', 0],
  ] as const) {
    // The time-out only guards against a watch that never ends (the failure this test looks for).
    it(`${what}, after a last bookmark`, { timeout: 30_000 }, async () => {
      const clock = new VirtualClock(1_000_000);
      // Periodic bookmarks only every 10 hours: the one seen is the pre-time-out bookmark.
      const s = await served(
        { minRequestTimeoutSeconds },
        { clock, bookmarkIntervalMs: 36_000_000 },
      );
      try {
        const rv = s.cluster.store.resourceVersion;
        const events = await s.watch(
          `/api/v1/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}${path}`,
          () => false,
          () => void clock.advance(120_000),
        );
        assert.deepEqual(
          events.map((e) => e.type),
          ['BOOKMARK'],
        );
      } finally {
        await s.close();
      }
    });
  }
});
