/** The panes that show one reconcile: request, result, API calls, objects, timeline, charts. */
import type { ReconcileView } from '../../src/protocol';
import { sparkline } from './charts';
import { h } from './dom';
import { formatDuration } from './format';
import { OUTCOME_LABELS, PHASE_LABELS } from './labels';
import type { View } from './view';
import { yamlDiff } from './yamldiff';

export function requestPane(v: View, cur: ReconcileView): HTMLElement {
  return h(
    'section',
    { class: 'pane', 'aria-label': 'Request' },
    h('h3', {}, 'Request'),
    h(
      'dl',
      {},
      h('dt', {}, 'Object'),
      h('dd', { class: 'request-name' }, `${cur.request.namespace}/${cur.request.name}`),
      h('dt', {}, 'Controller'),
      h('dd', {}, cur.controller),
      h('dt', {}, 'reconcileID'),
      h('dd', { class: 'mono' }, cur.id),
      h('dt', {}, 'Enqueued because'),
      h('dd', {}, cur.reason),
      h('dt', {}, 'Started'),
      h('dd', {}, v.rel(cur.start)),
    ),
    h(
      'ol',
      { class: 'phase-log' },
      ...cur.phases.map((p) =>
        h('li', {}, h('strong', {}, PHASE_LABELS[p.phase]), ` ${v.rel(p.at)} — ${p.detail}`),
      ),
    ),
  );
}

export function resultPane(v: View, cur: ReconcileView): HTMLElement {
  const r = cur.result;
  return h(
    'section',
    { class: 'pane result', 'aria-label': 'Result' },
    h('h3', {}, 'Result'),
    r
      ? h(
          'dl',
          {},
          h('dt', {}, 'Returned'),
          h('dd', { class: 'mono' }, r.returned),
          r.error ? h('dt', {}, 'Error') : null,
          r.error ? h('dd', { class: 'error' }, r.error) : null,
          h('dt', {}, 'The queue will'),
          h('dd', { class: 'next' }, r.next),
          r.nextAt !== null ? h('dt', {}, 'Next reconcile at') : null,
          r.nextAt !== null
            ? h(
                'dd',
                { class: 'next-at' },
                `${v.rel(r.nextAt)} (in ${formatDuration(r.delayMs ?? 0)})`,
              )
            : null,
        )
      : h('p', { class: 'muted' }, 'Not returned yet.'),
    cur.outcomes.length
      ? h(
          'p',
          {},
          'Outcomes: ',
          ...cur.outcomes.map((o) =>
            h('vscode-badge', { class: `outcome ${o}` }, OUTCOME_LABELS[o]),
          ),
        )
      : null,
  );
}

export function callsPane(v: View, cur: ReconcileView): HTMLElement {
  const cell = (text: string | number, cls = '') =>
    h('vscode-table-cell', { class: cls }, String(text));
  return h(
    'section',
    { class: 'pane calls', 'aria-label': 'API calls' },
    h('h3', {}, `API calls (${cur.calls.length})`),
    cur.calls.length === 0
      ? h('p', { class: 'muted' }, 'None yet.')
      : h(
          'vscode-table',
          {
            zebra: true,
            bordered: true,
            columns: JSON.stringify(['12%', '10%', '30%', '10%', '14%', '12%', '12%']),
          },
          h(
            'vscode-table-header',
            { slot: 'header' },
            ...['Phase', 'Verb', 'Object', 'Code', 'Answered by', 'Latency', ''].map((t) =>
              h('vscode-table-header-cell', {}, t),
            ),
          ),
          h(
            'vscode-table-body',
            { slot: 'body' },
            ...cur.calls.map((c) =>
              h(
                'vscode-table-row',
                { title: c.message ?? '' },
                cell(c.phase),
                cell(c.verb),
                cell(
                  `${c.resource}${c.subresource ? '/' + c.subresource : ''} ${c.namespace ? c.namespace + '/' : ''}${c.name ?? ''}`,
                ),
                cell(
                  c.fault !== undefined ? `${c.code || '…'} (fault ${c.fault})` : c.code || '…',
                  c.code >= 400 || c.fault !== undefined ? 'code-error' : 'code-ok',
                ),
                cell(c.source),
                cell(c.latencyMs ? formatDuration(c.latencyMs) : '—'),
                cell(c.message && c.code >= 400 ? c.message : ''),
              ),
            ),
          ),
        ),
  );
}

export function objectsPane(v: View, cur: ReconcileView): HTMLElement {
  return h(
    'section',
    { class: 'pane objects', 'aria-label': 'Objects' },
    h('h3', {}, 'Objects'),
    yamlDiff(`${cur.request.name}: as read → now`, cur.objectBefore, cur.objectAfter),
    ...cur.writes.map((w) =>
      yamlDiff(
        `${w.verb} ${w.resource}${w.subresource ? '/' + w.subresource : ''} ${w.name ?? ''} → ${w.code}`,
        w.before,
        w.after,
      ),
    ),
  );
}

export function timelinePane(v: View): HTMLElement {
  return h(
    'section',
    { class: 'pane timeline', 'aria-label': 'Timeline' },
    h('h3', {}, 'Timeline of this key'),
    v.state.history.length === 0
      ? h('p', { class: 'muted' }, 'No earlier reconciles.')
      : h(
          'ol',
          {},
          ...v.state.history.map((r) =>
            h(
              'li',
              {},
              h(
                'button',
                {
                  class: `link ${v.state.current?.id === r.id ? 'selected' : ''}`,
                  onclick: () => v.post({ type: 'inspect', id: r.id }),
                },
                `${v.rel(r.start)} ${r.outcome}`,
              ),
              r.faults
                ? h(
                    'span',
                    { class: 'code-error', title: 'Injected faults' },
                    ` ⚡ ${r.faults.join(', ')}`,
                  )
                : null,
            ),
          ),
        ),
  );
}

export function chartsPane(v: View): HTMLElement {
  return h(
    'section',
    { class: 'pane charts', 'aria-label': 'Charts' },
    h('h3', {}, 'Queue and latency'),
    sparkline('Queue depth', v.state.charts.queueDepth, ''),
    sparkline('Reconcile latency', v.state.charts.latencyMs, 'ms'),
  );
}
