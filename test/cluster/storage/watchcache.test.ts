/**
 * Reads "not older than" a resourceVersion the store has not reached, as kube-apiserver's watch
 * cache serves them: a LIST (any resourceVersionMatch) or a WatchList waits up to 3 s on the
 * cluster's clock for the store to get there, then fails with "Too large resource version" —
 * a 504 for the LIST, one ERROR event on a 200 stream for the watch. A plain watch from such a
 * version is accepted at once and sends only the changes after it; resourceVersion=0 never waits.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { BLOCK_TIMEOUT_MS } from '../../../src/cluster/storage/watchcache';
import type { StatusError } from '../../../src/cluster/apimachinery/errors';
import { VirtualClock } from '../../../src/util/clock';
import { CM } from '../helpers';
import { served } from '../http';
import type { Answer, Served } from '../http';

const CMS = '/api/v1/namespaces/default/configmaps';
const WATCHLIST = 'watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan';

let s: Served;
let clock: VirtualClock;
before(async () => {
  clock = new VirtualClock(1_000_000);
  s = await served({}, { clock });
});
after(() => s.close());

let n = 0;
/** One write: the store's resourceVersion moves on by one. */
const write = () =>
  s.cluster.create({ ...CM, metadata: { name: `cm${n++}`, namespace: 'default' } });
const current = () => s.cluster.store.resourceVersion;

const settle = () => new Promise((r) => setImmediate(r));

/**
 * Resolves once the cluster's clock has `timers` timers pending: with nothing else running (the
 * watches of earlier tests have been cleaned up), a read waiting on the store has its block-time-out
 * timer set.
 */
async function timersPending(timers: number): Promise<void> {
  while (clock.pendingTimers !== timers) await settle();
}

/** Starts `read`, and resolves once it is waiting, with its answer still to come. */
async function startWaiting<T>(read: () => Promise<T>): Promise<{ answer: Promise<T> }> {
  await timersPending(0);
  const answer = read();
  await timersPending(1);
  return { answer };
}

function assertTooLarge(status: Record<string, unknown>, asked: number, at: number): void {
  assert.deepEqual(status, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Timeout: Too large resource version: ${asked}, current: ${at}`,
    reason: 'Timeout',
    details: {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
    code: 504,
  });
}

const items = (a: Answer) =>
  (JSON.parse(a.body) as { items: Array<{ metadata: { name: string } }> }).items.map(
    (o) => o.metadata.name,
  );

// A read that never answers fails by these time-outs (they guard against a hang, nothing more).
describe('a LIST at a resourceVersion the store has not reached', { timeout: 30_000 }, () => {
  for (const match of ['', '&resourceVersionMatch=NotOlderThan', '&resourceVersionMatch=Exact']) {
    it(`waits for it, and answers once a write gets there${match}`, async () => {
      const asked = current() + 1;
      const { answer } = await startWaiting(() => s.get(`${CMS}?resourceVersion=${asked}${match}`));
      await clock.advance(BLOCK_TIMEOUT_MS - 1); // not yet timed out
      const made = write();
      const r = await answer;
      assert.equal(r.status, 200, r.body);
      assert.ok(items(r).includes(made.metadata.name!));
      const rv = (JSON.parse(r.body) as { metadata: { resourceVersion: string } }).metadata;
      assert.equal(rv.resourceVersion, String(asked));
    });

    it(`answers 504 Too large resource version after 3 s${match}`, async () => {
      const at = current();
      const asked = at + 5;
      const { answer } = await startWaiting(() => s.get(`${CMS}?resourceVersion=${asked}${match}`));
      write(); // not far enough
      await clock.advance(BLOCK_TIMEOUT_MS);
      const r = await answer;
      assert.equal(r.status, 504, r.body);
      assert.equal(r.headers['retry-after'], '1');
      assertTooLarge(JSON.parse(r.body) as Record<string, unknown>, asked, at + 1);
    });
  }

  it('does not wait for resourceVersion=0 ("any")', async () => {
    await timersPending(0);
    const r = await s.get(`${CMS}?resourceVersion=0`);
    assert.equal(r.status, 200, r.body);
    assert.equal(clock.pendingTimers, 0);
  });

  it('answers a bad label selector at once, without waiting', async () => {
    const r = await s.get(`${CMS}?resourceVersion=${current() + 1}&labelSelector=a%20in`);
    assert.equal(r.status, 400, r.body);
  });

  it('stops waiting when the client goes away', async () => {
    await timersPending(0);
    const req = request(`${s.server.url}${CMS}?resourceVersion=${current() + 1}`, {
      ca: s.server.caPem,
      headers: { authorization: `Bearer ${s.server.token}` },
    });
    req.on('error', () => {});
    req.end();
    await timersPending(1);
    req.destroy();
    await timersPending(0);
  });

  it('fails at once in-process: the core does not wait, the HTTP layer does', () => {
    const asked = current() + 1;
    assert.throws(
      () => s.cluster.list(CM, { resourceVersion: String(asked) }),
      (err: StatusError) => {
        assertTooLarge(err.status as unknown as Record<string, unknown>, asked, asked - 1);
        return true;
      },
    );
  });
});

describe('a watch from a resourceVersion the store has not reached', { timeout: 30_000 }, () => {
  it('with sendInitialEvents waits for it, then sends the initial events', async () => {
    const asked = current() + 1;
    const { answer: events } = await startWaiting(() =>
      s.watch(`${CMS}?${WATCHLIST}&allowWatchBookmarks=true&resourceVersion=${asked}`, (evs) =>
        evs.some((e) => e.type === 'BOOKMARK'),
      ),
    );
    const made = write();
    const evs = await events;
    const added = evs.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata);
    assert.ok(added.some((m) => (m as { name: string }).name === made.metadata.name));
    const last = evs[evs.length - 1];
    assert.equal(last.type, 'BOOKMARK');
    assert.equal((last.object.metadata as { resourceVersion: string }).resourceVersion, `${asked}`);
  });

  it('with sendInitialEvents ends with one ERROR event after 3 s', async () => {
    const at = current();
    const asked = at + 2;
    const { answer: events } = await startWaiting(() =>
      s.watch(`${CMS}?${WATCHLIST}&resourceVersion=${asked}`, () => false),
    );
    await clock.advance(BLOCK_TIMEOUT_MS);
    const evs = await events; // the stream ended by itself
    assert.equal(evs.length, 1);
    assert.equal(evs[0].type, 'ERROR');
    assertTooLarge(evs[0].object, asked, at);
  });

  it('without sendInitialEvents is accepted at once and sends only the changes after it', async () => {
    const asked = current() + 2;
    await timersPending(0);
    const events = s.watch(
      `${CMS}?watch=1&timeoutSeconds=60&resourceVersion=${asked}`,
      (evs) => evs.length > 0,
      () => {
        assert.equal(clock.pendingTimers, 1); // its time-out: no wait
        write(); // asked - 1
        write(); // asked
        write(); // after it
      },
    );
    const evs = await events;
    assert.equal(evs[0].type, 'ADDED');
    assert.equal(
      (evs[0].object.metadata as { resourceVersion: string }).resourceVersion,
      String(asked + 1),
    );
  });
  it('without sendInitialEvents sends no bookmark behind the version it starts from', async () => {
    const asked = current() + 1;
    await timersPending(0);
    const events = s.watch(
      `${CMS}?watch=1&allowWatchBookmarks=true&timeoutSeconds=600&resourceVersion=${asked}`,
      (evs) => evs.some((e) => e.type === 'ADDED'),
      () =>
        void (async () => {
          await timersPending(2); // its bookmark tick and its time-out
          await clock.advance(s.cluster.bookmarkIntervalMs); // a bookmark tick, store behind
          write(); // asked: not sent
          await clock.advance(s.cluster.bookmarkIntervalMs); // a bookmark at asked
          write(); // after it
        })(),
    );
    const evs = await events;
    assert.deepEqual(
      evs.map(
        (e) => `${e.type}@${(e.object.metadata as { resourceVersion: string }).resourceVersion}`,
      ),
      [`BOOKMARK@${asked}`, `ADDED@${asked + 1}`],
    );
  });
});

describe('the server closing', { timeout: 30_000 }, () => {
  it('ends the reads waiting on the store', async () => {
    const own = new VirtualClock(0);
    const t = await served({}, { clock: own });
    const rv = t.cluster.store.resourceVersion + 1;
    const list = t.get(`${CMS}?resourceVersion=${rv}`).catch(() => undefined);
    const watch = t.watch(`${CMS}?${WATCHLIST}&resourceVersion=${rv}`, () => false).catch(() => []);
    const pending = (n: number) => own.pendingTimers === n;
    while (!pending(2)) await settle(); // both wait
    await t.close();
    await Promise.all([list, watch]);
    while (!pending(0)) await settle(); // neither does any more
  });
});
