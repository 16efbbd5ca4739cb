/**
 * The panel's two tabs under the controls: Reconcile (the reconcile shown — request, result, API
 * calls, objects — and its key's timeline) and Charts. Step first: the panel opens on Reconcile,
 * and a Step goes back to it; the charts never push what a step shows below the fold. The tab
 * chosen stays across renders, and across a reload of the webview: the panel saves it with its
 * state (DebuggerSnapshot.tab) and selects it again on load. A tab list in the ARIA pattern: the
 * arrow keys move between tabs.
 */
import type { DebuggerTab } from '../../src/protocol';
import { pileUps } from './chartdata';
import { h } from './dom';
import type { View } from './view';

export type Tab = DebuggerTab;

const TABS: Array<[Tab, string]> = [
  ['reconcile', 'Reconcile'],
  ['charts', 'Charts'],
];

let selected: Tab = 'reconcile';

export function selectedTab(): Tab {
  return selected;
}

export function selectTab(tab: Tab): void {
  selected = tab;
}

/**
 * The tab list; choosing a tab calls `render` (which the panel follows by saving its state). The Charts tab says when a key piled up at one
 * instant of controller time (a hot loop), so the charts are not missed behind their tab.
 */
export function tabBar(v: View, render: () => void): HTMLElement {
  const piled = pileUps(v.state.charts.reconcilesPerKey);
  const choose = (tab: Tab, focus = false) => {
    selected = tab;
    render();
    if (focus) (document.getElementById(`tab-${tab}`) as HTMLElement | null)?.focus();
  };
  return h(
    'div',
    {
      class: 'tabs',
      role: 'tablist',
      'aria-label': 'What the panel shows',
      onkeydown: (e: Event) => {
        const key = (e as KeyboardEvent).key;
        if (key !== 'ArrowLeft' && key !== 'ArrowRight') return;
        e.preventDefault();
        const i = TABS.findIndex(([t]) => t === selected);
        const next = TABS[(i + (key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length]!;
        choose(next[0], true);
      },
    },
    ...TABS.map(([tab, label]) =>
      h(
        'button',
        {
          id: `tab-${tab}`,
          class: `tab ${tab === selected ? 'selected' : ''}`,
          role: 'tab',
          'aria-selected': String(tab === selected),
          'aria-controls': 'tabpanel',
          tabindex: tab === selected ? '0' : '-1',
          onclick: () => choose(tab),
        },
        label,
        tab === 'charts' && piled.length
          ? h(
              'vscode-badge',
              { class: 'tab-badge', title: 'Reconciles at one instant of controller time' },
              'hot loop',
            )
          : null,
      ),
    ),
  );
}

/** The selected tab's panel around `content`. */
export function tabPanel(...content: Array<Node | string | null>): HTMLElement {
  return h(
    'div',
    {
      id: 'tabpanel',
      class: `tabpanel tabpanel-${selected}`,
      role: 'tabpanel',
      'aria-labelledby': `tab-${selected}`,
    },
    ...content,
  );
}
