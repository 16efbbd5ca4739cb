import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChartPoint } from '../../../src/protocol';
import { selectTab, selectedTab, tabBar, tabPanel } from '../../../webviews/debugger/tabs';
import { click, text, useDom, viewOf } from './dom';
import { ORIGIN, heldState } from './states';

useDom();

describe('the panel’s tabs', () => {
  it('opens on the reconcile, with the charts in a tab of their own', () => {
    const bar = tabBar(viewOf(heldState()), () => undefined);
    const tabs = Array.from(bar.querySelectorAll('[role="tab"]'));
    assert.deepEqual(
      tabs.map((t) => text(t)),
      ['Reconcile', 'Charts'],
    );
    assert.equal(selectedTab(), 'reconcile');
    assert.deepEqual(
      tabs.map((t) => t.getAttribute('aria-selected')),
      ['true', 'false'],
    );
  });

  it('switches to the charts on a click and renders again, and keeps the choice', () => {
    let renders = 0;
    const bar = tabBar(viewOf(heldState()), () => renders++);
    click(bar.querySelector('#tab-charts'));
    assert.equal(renders, 1);
    assert.equal(selectedTab(), 'charts');
    const panel = tabPanel('the charts');
    assert.equal(panel.getAttribute('role'), 'tabpanel');
    assert.equal(panel.getAttribute('aria-labelledby'), 'tab-charts');
    const again = tabBar(viewOf(heldState()), () => undefined);
    assert.equal(again.querySelector('#tab-charts')?.getAttribute('aria-selected'), 'true');
    selectTab('reconcile');
  });

  it('moves between the tabs with the arrow keys', () => {
    const bar = tabBar(viewOf(heldState()), () => undefined);
    const Key = (bar.ownerDocument.defaultView as unknown as typeof globalThis).KeyboardEvent;
    bar.dispatchEvent(new Key('keydown', { key: 'ArrowRight' }));
    assert.equal(selectedTab(), 'charts');
    bar.dispatchEvent(new Key('keydown', { key: 'ArrowRight' }));
    assert.equal(selectedTab(), 'reconcile', 'round to the first');
  });

  it('marks the Charts tab when a key piled up at one instant of controller time', () => {
    const calm = tabBar(viewOf(heldState()), () => undefined);
    assert.equal(calm.querySelector('.tab-badge'), null);
    const points = Array.from({ length: 12 }, (_, i): ChartPoint => [ORIGIN, i + 1, i * 4]);
    const hot = tabBar(
      viewOf(
        heldState({
          charts: {
            runMs: 100,
            queueDepth: [],
            latencyMs: [],
            reconcilesPerKey: [{ key: 'default/shop', points }],
          },
        }),
      ),
      () => undefined,
    );
    assert.equal(text(hot.querySelector('#tab-charts .tab-badge')), 'hot loop');
  });
});
