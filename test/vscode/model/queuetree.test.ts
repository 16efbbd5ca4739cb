import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QueueTreeModel, adaptSnapshot, type QueueNode } from '../../../src/vscode/model/queuetree';

const snapshot = {
  controller: 'webapp',
  now: 10_000,
  processing: [{ key: 'default/shop', since: 9_000 }],
  queued: ['default/a', 'default/b'],
  waiting: [
    { key: 'default/blog', readyAt: 40_000, reason: { kind: 'requeueAfter' as const } },
    { key: 'default/wiki', readyAt: 10_040, reason: { kind: 'backoff' as const, attempt: 3 } },
  ],
  retries: { 'default/wiki': 3 },
};

describe('QueueTreeModel', () => {
  it('shows a Go operator being built above the controllers, until the build is over', () => {
    const m = new QueueTreeModel();
    assert.equal(m.empty, true);
    m.setBuild({ text: 'Building: 57 packages, 0:42 — x', tooltip: 'Click to stop.' });
    assert.equal(m.empty, false, 'the view does not say no reconciler is running');
    m.update(snapshot);
    const [build, controller] = m.children();
    assert.deepEqual(build, {
      type: 'build',
      id: 'build',
      text: 'Building: 57 packages, 0:42 — x',
      tooltip: 'Click to stop.',
    });
    assert.deepEqual(m.children(build), []);
    assert.equal(controller?.type, 'controller');
    m.setBuild(undefined);
    assert.deepEqual(
      m.children().map((n) => n.type),
      ['controller'],
    );
  });

  it('lists processing, queued and waiting sections per controller', () => {
    const m = new QueueTreeModel();
    m.update(snapshot);
    const [controller] = m.children();
    assert.equal(controller!.type, 'controller');
    const sections = m.children(controller);
    assert.deepEqual(
      sections.map((s) => s.type === 'section' && [s.section, s.count]),
      [
        ['processing', 1],
        ['queued', 2],
        ['waiting', 2],
      ],
    );
    assert.equal(m.depth(), 5);
  });

  it("adds a Findings section, and the controller's own reported depth, when an observed controller has them", () => {
    const m = new QueueTreeModel();
    m.update({
      ...snapshot,
      queued: [],
      depth: 4,
      findings: [
        {
          kind: 'quota-conflict',
          key: 'default/shop',
          message: 'exceeded quota',
          evidence: ['ResourceQuota compute.', 'Counted 2 times.'],
        },
      ],
    });
    const [controller] = m.children();
    assert.equal(controller!.type === 'controller' && controller.depth, 4);
    const findings = m
      .children(controller)
      .find((s) => s.type === 'section' && s.section === 'findings')!;
    const [item] = m.children(findings);
    assert.equal(item!.type === 'item' && item.key, 'quota-conflict default/shop');
    assert.equal(item!.type === 'item' && item.description, 'exceeded quota');
    assert.equal(
      item!.type === 'item' && item.tooltip,
      'exceeded quota\nResourceQuota compute.\nCounted 2 times.',
    );
  });

  it('gives every finding a tree id of its own, also two of one kind on one key', () => {
    const m = new QueueTreeModel();
    m.update({
      ...snapshot,
      findings: [
        { kind: 'quota-conflict', key: 'default/shop', message: 'pods=1' },
        { kind: 'quota-conflict', key: 'default/shop', message: 'pods=2' },
      ],
    });
    const [controller] = m.children();
    const findings = m
      .children(controller)
      .find((s) => s.type === 'section' && s.section === 'findings')!;
    const ids = m.children(findings).map((n) => n.id);
    assert.equal(new Set(ids).size, 2);
  });

  it('says how long an item has been processing', () => {
    const m = new QueueTreeModel();
    m.update(snapshot);
    const [proc] = m.children(m.children(m.children()[0])[0]);
    assert.equal((proc as Extract<QueueNode, { type: 'item' }>).description, 'for 1s');
  });

  it('orders waiting items by readiness and says why they wait and how long is left', () => {
    const m = new QueueTreeModel();
    m.update(snapshot);
    const waiting = m.children(m.children(m.children()[0])[2]) as Array<
      Extract<QueueNode, { type: 'item' }>
    >;
    assert.deepEqual(
      waiting.map((w) => [w.key, w.description]),
      [
        ['default/wiki', 'in 40ms · backoff 3 · 3 retries'],
        ['default/blog', 'in 30s · requeueAfter'],
      ],
    );
  });

  it("reads the runtime's queue snapshot: order, wait reasons and retries", () => {
    const s = adaptSnapshot({
      controller: 'webapp',
      at: 1_000,
      queued: [{ key: 'default/a', since: 900 }, { key: 'default/b' }],
      waiting: [{ key: 'default/c', readyAt: 31_000, reason: { kind: 'requeueAfter' } }],
      processing: [{ key: 'default/d', worker: 1 }],
      retries: [{ key: 'default/c', count: 2 }],
      suspended: [],
      workers: 1,
      activeWorkers: 1,
    });
    assert.deepEqual(s.queued, ['default/a', 'default/b']);
    assert.deepEqual(s.processing, [{ key: 'default/d', since: 1_000 }]);
    assert.deepEqual(s.retries, { 'default/c': 2 });
    assert.equal(s.waiting[0]!.reason.kind, 'requeueAfter');
  });
});
