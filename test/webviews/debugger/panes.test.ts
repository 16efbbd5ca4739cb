import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  callsPane,
  chartsPane,
  objectsPane,
  requestPane,
  resultPane,
  timelinePane,
} from '../../../webviews/debugger/panes';
import { click, text, useDom, viewOf } from './dom';
import { ORIGIN, call, heldReconcile, heldState } from './states';

useDom();

describe('the request pane', () => {
  it('names the object, controller, reconcileID and why it was enqueued', () => {
    const pane = requestPane(viewOf(heldState()), heldReconcile());
    const shown = text(pane);
    for (const s of ['default/shop', 'webapp', 'r-7', 'update of WebApp default/shop'])
      assert.ok(shown.includes(s), `shows ${s}: ${shown}`);
  });

  it('shows times from the session start, not clock milliseconds', () => {
    const shown = text(requestPane(viewOf(heldState()), heldReconcile()));
    assert.ok(shown.includes('@5214'), 'the start, relative to the origin');
    assert.ok(!shown.includes(String(ORIGIN + 5_214)), 'no raw clock value');
  });

  it('lists each phase reached, in order, with its detail', () => {
    const items = Array.from(
      requestPane(viewOf(heldState()), heldReconcile()).querySelectorAll('ol li'),
    ).map(text);
    assert.equal(items.length, 6);
    assert.match(items[0], /^Enqueue\b/);
    assert.match(items[4], /^Diff\b.*replicas 2 → 3/);
    assert.match(items[5], /^Write\b/);
  });
});

describe('the result pane', () => {
  it('says when Reconcile has not returned yet', () => {
    assert.match(text(resultPane(viewOf(heldState()), heldReconcile())), /Not returned yet/);
  });

  it('shows what Reconcile returned, the error, and what the queue does next and when', () => {
    const cur = heldReconcile({
      heldAt: null,
      result: {
        returned: 'error: conflict',
        error: 'the object has been modified',
        next: 'rate-limited requeue (backoff 1)',
        nextAt: ORIGIN + 5_221,
        delayMs: 5,
      },
    });
    const shown = text(resultPane(viewOf(heldState({ current: cur })), cur));
    for (const s of [
      'error: conflict',
      'the object has been modified',
      'rate-limited requeue (backoff 1)',
      '@5221',
    ])
      assert.ok(shown.includes(s), `shows ${s}: ${shown}`);
    assert.doesNotMatch(shown, /Not returned yet/);
  });

  it('names the outcomes seen', () => {
    assert.match(text(resultPane(viewOf(heldState()), heldReconcile())), /Conflict/);
    const none = heldReconcile({ outcomes: [] });
    assert.doesNotMatch(text(resultPane(viewOf(heldState()), none)), /Outcomes/);
  });
});

describe('the API calls pane', () => {
  it('counts the calls and shows one row per call with verb, object, code and source', () => {
    const pane = callsPane(viewOf(heldState()), heldReconcile());
    assert.match(text(pane.querySelector('h3')), /2/);
    const rows = Array.from(pane.querySelectorAll('tbody tr')).map(text);
    assert.equal(rows.length, 2);
    assert.match(rows[0], /get.*webapps default\/shop.*200.*cache/);
    assert.match(rows[1], /update.*deployments default\/shop.*409.*server/);
  });

  it('marks failed calls and gives their message', () => {
    const pane = callsPane(viewOf(heldState()), heldReconcile());
    const failed = pane.querySelectorAll('tbody tr')[1];
    assert.ok(failed.querySelector('.code-error'), 'the 409 is marked as an error');
    assert.match(text(failed), /the object has been modified/);
    const ok = pane.querySelectorAll('tbody tr')[0];
    assert.equal(ok.querySelector('.code-error'), null);
  });

  it('names the injected fault that hit a call', () => {
    const cur = heldReconcile({ calls: [call({ verb: 'update', code: 409, fault: 'conflict' })] });
    const row = callsPane(viewOf(heldState()), cur).querySelector('tbody tr');
    assert.match(text(row), /fault conflict/);
    assert.ok(row?.querySelector('.code-error'));
  });

  it("shows a write's webhook calls on rows under it: kind, webhook, verdict, latency, denial", () => {
    const cur = heldReconcile({
      calls: [
        call({
          verb: 'create',
          resource: 'configmaps',
          name: 'shop-reply',
          code: 403,
          source: 'server',
          phase: 'write',
          webhooks: [
            {
              kind: 'mutating',
              webhook: 'm.example.com',
              configuration: 'stamps',
              asked: 'CREATE configmaps default/shop-reply',
              verdict: 'allowed, patched',
              refused: false,
              failed: false,
              latencyMs: 3,
            },
            {
              kind: 'validating',
              webhook: 'v.example.com',
              verdict: 'denied (403)',
              refused: true,
              failed: false,
              message: 'admission webhook "v.example.com" denied the request: no',
              latencyMs: 12,
            },
          ],
        }),
        call(),
      ],
    });
    const pane = callsPane(viewOf(heldState()), cur);
    // The header counts the API calls, not the webhook calls.
    assert.match(text(pane.querySelector('h3')), /\(2\)/);
    const rows = Array.from(pane.querySelectorAll('tbody tr'));
    assert.deepEqual(
      rows.map((r) => r.classList.contains('webhook-call')),
      [false, true, true, false],
    );
    const cells = (r: Element) => Array.from(r.querySelectorAll('td')).map(text);
    assert.deepEqual(cells(rows[1]).slice(1, 6), [
      'mutating',
      'm.example.com',
      'allowed, patched',
      'webhook',
      '3ms',
    ]);
    assert.equal(
      rows[1].getAttribute('title'),
      'configuration stamps: CREATE configmaps default/shop-reply',
    );
    assert.equal(rows[1].querySelector('.code-error'), null);
    assert.deepEqual(cells(rows[2]).slice(1, 7), [
      'validating',
      'v.example.com',
      'denied (403)',
      'webhook',
      '12ms',
      'admission webhook "v.example.com" denied the request: no',
    ]);
    assert.ok(rows[2].querySelector('.code-error'), 'the denial is marked as an error');
  });

  it('says so when no call was made yet', () => {
    const pane = callsPane(viewOf(heldState()), heldReconcile({ calls: [] }));
    assert.match(text(pane), /None yet/);
    assert.equal(pane.querySelector('tbody tr'), null);
  });
});

describe('the objects pane', () => {
  it('diffs the object as read against now, and each write before against after', () => {
    const pane = objectsPane(viewOf(heldState()), heldReconcile());
    const diffs = Array.from(pane.querySelectorAll('.diff'));
    assert.equal(diffs.length, 2, 'the reconciled object and one write');
    assert.match(text(diffs[1].querySelector('h4')), /update deployments shop/);
    assert.match(text(diffs[1].querySelector('h4')), /409/);
    assert.ok(diffs[1].querySelector('[aria-label="removed:   replicas: 2"]'));
    assert.ok(diffs[1].querySelector('[aria-label="added:   replicas: 3"]'));
  });
});

describe('the timeline pane', () => {
  it('lists the key’s reconciles with their outcome, the one shown selected', () => {
    const pane = timelinePane(viewOf(heldState()));
    const entries = Array.from(pane.querySelectorAll('li'));
    assert.equal(entries.length, 2);
    assert.match(text(entries[0]), /requeue after 30s/);
    assert.ok(text(entries[0]).includes('t+1.0'), 'a time relative to the session start');
    assert.equal(entries[0].querySelector('.selected'), null);
    assert.ok(entries[1].querySelector('.selected'), 'r-7 is the reconcile shown');
  });

  it('asks the extension to show a reconcile when it is clicked', () => {
    const view = viewOf(heldState());
    click(timelinePane(view).querySelector('li button'));
    assert.deepEqual(view.posted, [{ type: 'inspect', id: 'r-6' }]);
  });

  it('marks reconciles hit by injected faults', () => {
    const state = heldState({
      history: [
        {
          id: 'r-6',
          start: ORIGIN,
          end: ORIGIN + 1,
          outcome: 'error',
          faults: ['conflict-on-update'],
        },
      ],
    });
    assert.match(text(timelinePane(viewOf(state))), /conflict-on-update/);
  });

  it('says so when the key has no reconciles yet', () => {
    assert.match(text(timelinePane(viewOf(heldState({ history: [] })))), /No earlier reconciles/);
  });
});

describe('the charts pane', () => {
  it('shows queue depth and reconcile latency with their latest values', () => {
    const state = heldState({
      charts: {
        runMs: 2000,
        queueDepth: [
          [ORIGIN, 1, 0],
          [ORIGIN + 1000, 4, 1000],
        ],
        latencyMs: [
          [ORIGIN, 2, 0],
          [ORIGIN + 1000, 12, 1000],
        ],
        reconcilesPerKey: [],
      },
    });
    const shown = text(chartsPane(viewOf(state)));
    assert.match(shown, /Queue depth/i);
    assert.match(shown, /latency/i);
    assert.ok(shown.includes('4'), 'the queue depth now');
    assert.ok(shown.includes('12'), 'the latest latency');
    assert.match(shown, /running time/, 'says what the x axis is');
  });

  it('says a hot loop at one instant of controller time as a rate, and charts the rate', () => {
    const points = Array.from({ length: 21 }, (_, i): [number, number, number] => [
      ORIGIN,
      i + 1,
      i * 5,
    ]);
    const state = heldState({
      charts: {
        runMs: 1000,
        queueDepth: [],
        latencyMs: [],
        reconcilesPerKey: [{ key: 'default/shop', points }],
      },
    });
    const pane = chartsPane(viewOf(state));
    const note = pane.querySelector('.pile-up');
    assert.ok(note, 'the pile-up is said above the charts');
    assert.equal(
      text(note as HTMLElement),
      'default/shop: hot loop — 21 reconciles in 0ms of controller time, over 100ms of running time (200/s), from @0.',
    );
    const captions = Array.from(pane.querySelectorAll('figcaption')).map((c) =>
      text(c as HTMLElement),
    );
    assert.ok(
      captions.includes('Reconcile rate — default/shop at most 200/s (counted per 50ms)'),
      captions.join(' | '),
    );
    assert.ok(captions.includes('Reconciles per key — default/shop 21'), captions.join(' | '));
  });

  it('says nothing of a hot loop when reconciles spread over the controller’s clock', () => {
    const points = Array.from({ length: 21 }, (_, i): [number, number, number] => [
      ORIGIN + i * 1000,
      i + 1,
      i * 1000,
    ]);
    const state = heldState({
      charts: {
        runMs: 21_000,
        queueDepth: [],
        latencyMs: [],
        reconcilesPerKey: [{ key: 'default/shop', points }],
      },
    });
    assert.equal(chartsPane(viewOf(state)).querySelector('.pile-up'), null);
  });
});
