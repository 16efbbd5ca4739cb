/**
 * The panes that show one reconcile — request, result, API calls, objects, timeline — and the
 * charts, which have a tab of their own (tabs.ts).
 */
import type { ReconcileSummary, ReconcileView, WebhookCallView } from '../../src/protocol';
import { formatDuration, formatOffset, offsetDecimals } from '../../src/vscode/model/timeformat';
import {
  countsInWords,
  formatRate,
  latestInWords,
  pileUpInWords,
  pileUps,
  pointColumns,
  rateColumns,
  ratesInWords,
  sharedRange,
  stepColumns,
} from './chartdata';
import { plotFigure } from './charts';
import { h } from './dom';
import { OUTCOME_LABELS, PHASE_LABELS } from './labels';
import { foldTimeline, passLabels, rowLabels } from './timeline';
import type { View } from './view';
import { yamlDiff } from './yamldiff';

export function requestPane(v: View, cur: ReconcileView): HTMLElement {
  return h(
    'section',
    { class: 'pane request', 'aria-label': 'Request' },
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

/** The widths of the API calls table's columns: fixed, so a long value never pushes the rest out. */
const CALL_COLUMNS: Array<[string, string]> = [
  ['Phase', '9%'],
  ['Verb', '8%'],
  ['Object', '31%'],
  ['Code', '11%'],
  ['Answered by', '10%'],
  ['Latency', '9%'],
  ['Message', '22%'],
];

export function callsPane(v: View, cur: ReconcileView): HTMLElement {
  // A cell shows what fits; its title holds the whole value.
  const cell = (text: string, cls = '') => h('td', { class: cls, title: text || undefined }, text);
  return h(
    'section',
    { class: 'pane calls', 'aria-label': 'API calls' },
    h('h3', {}, `API calls (${cur.calls.length})`),
    cur.calls.length === 0
      ? h('p', { class: 'muted' }, 'None yet.')
      : h(
          'table',
          { class: 'calls-table' },
          h('colgroup', {}, ...CALL_COLUMNS.map(([, width]) => h('col', { width }))),
          h('thead', {}, h('tr', {}, ...CALL_COLUMNS.map(([name]) => h('th', {}, name)))),
          h(
            'tbody',
            {},
            ...cur.calls.flatMap((c) => [
              h(
                'tr',
                {},
                cell(c.phase),
                cell(c.verb),
                cell(
                  `${c.resource}${c.subresource ? '/' + c.subresource : ''} ${c.namespace ? c.namespace + '/' : ''}${c.name ?? ''}`,
                ),
                cell(
                  c.fault !== undefined
                    ? `${c.code || '…'} (fault ${c.fault})`
                    : String(c.code || '…'),
                  c.code >= 400 || c.fault !== undefined ? 'code-error' : 'code-ok',
                ),
                cell(c.source),
                cell(c.latencyMs ? formatDuration(c.latencyMs) : '—'),
                // An error's message is what the user came for: it wraps instead of being cut.
                cell(c.message && c.code >= 400 ? c.message : '', 'message'),
              ),
              ...(c.webhooks ?? []).map((w) => webhookRow(w, cell)),
            ]),
          ),
        ),
  );
}

/**
 * A webhook call the API server made for the call above it, on a row of its own in the same
 * columns: its kind where the verb is, the webhook where the object is, its verdict where the
 * code is, its latency and its denial or failure.
 */
function webhookRow(
  w: WebhookCallView,
  cell: (text: string, cls?: string) => HTMLElement,
): HTMLElement {
  const about = [w.configuration && `configuration ${w.configuration}`, w.asked]
    .filter(Boolean)
    .join(': ');
  return h(
    'tr',
    { class: 'webhook-call', title: about || undefined },
    cell('↳ webhook', 'webhook-mark'),
    cell(w.kind),
    cell(w.webhook),
    cell(w.verdict, w.refused || w.failed ? 'code-error' : 'code-ok'),
    cell('webhook'),
    cell(formatDuration(w.latencyMs)),
    cell(w.message ?? '', 'message'),
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

/** Folded runs of the timeline the user opened (by their first reconcile), kept open across renders. */
const openRuns = new Set<string>();

export function timelinePane(v: View): HTMLElement {
  const history = v.state.history;
  const decimals = offsetDecimals(
    history.map((r) => r.start),
    v.state.origin,
  );
  const at = (ms: number) => formatOffset(ms, v.state.origin, decimals);
  const selected = v.state.current?.id;
  const link = (r: ReconcileSummary, text: string, current = selected === r.id) =>
    h(
      'button',
      {
        class: `link ${current ? 'selected' : ''}`,
        title: 'Show this reconcile',
        onclick: () => v.post({ type: 'inspect', id: r.id }),
      },
      text,
    );
  const rows = foldTimeline(history);
  const { labels, note } = rowLabels(rows, at);
  return h(
    'section',
    { class: 'pane timeline', 'aria-label': 'Timeline' },
    h('h3', {}, 'Timeline of this key'),
    note ? h('p', { class: 'muted timeline-note' }, note) : null,
    history.length === 0
      ? h('p', { class: 'muted' }, 'No earlier reconciles.')
      : h(
          'ol',
          {},
          ...rows.map((row, index) => {
            const first = row.runs[0]!;
            const last = row.runs[row.runs.length - 1]!;
            const folded = row.runs.length > 1;
            const faults = row.faults
              ? h(
                  'span',
                  { class: 'code-error', title: 'Injected faults' },
                  ` ⚡ ${row.faults.join(', ')}`,
                )
              : null;
            const head = h(
              'span',
              { class: 'row-head' },
              h('span', { class: 'when' }, labels[index]),
              folded
                ? h('vscode-badge', { class: 'repeat' }, `×${row.runs.length} same result`)
                : null,
              link(
                last,
                row.outcome,
                row.runs.some((r) => r.id === selected),
              ),
              faults,
            );
            if (!folded) return h('li', {}, head);
            // The passes stay reachable one by one, for whoever opens the row.
            return h(
              'li',
              {},
              h(
                'details',
                {
                  open: openRuns.has(first.id),
                  ontoggle: (e: Event) => {
                    const open = (e.currentTarget as HTMLDetailsElement).open;
                    if (open) openRuns.add(first.id);
                    else openRuns.delete(first.id);
                  },
                },
                h('summary', {}, head),
                h(
                  'ol',
                  { class: 'passes' },
                  ...passLabels(row, at).map((label, i) => h('li', {}, link(row.runs[i]!, label))),
                ),
              ),
            );
          }),
        ),
  );
}

/**
 * The charts, on the session's running time (wall-clock time, holds left out): queue depth,
 * reconcile latency, each busy key's reconciles per second and counted up. A hot loop on the
 * virtual clock — many reconciles at one instant of controller time — is said above them in
 * words, as a rate.
 */
export function chartsPane(v: View): HTMLElement {
  const { charts, origin } = v.state;
  const count = (n: number) => String(Math.round(n));
  const queueDepth = stepColumns([charts.queueDepth], charts.runMs);
  const latency = pointColumns(charts.latencyMs);
  const keys = charts.reconcilesPerKey;
  const perKey = stepColumns(
    keys.map((k) => k.points),
    charts.runMs,
  );
  const rate = rateColumns(
    keys.map((k) => k.points),
    charts.runMs,
  );
  // One time axis for the four, from the session's start to now (or the latest point).
  const xRange = sharedRange(
    [queueDepth.columns[0], latency.columns[0], perKey.columns[0], rate.columns[0]],
    charts.runMs,
  );
  const piled = pileUps(keys);
  const keySeries = keys.map((k) => ({ label: k.key, style: 'step' as const }));
  return h(
    'section',
    { class: 'pane charts', 'aria-label': 'Charts' },
    h('h3', {}, 'Queue, latency and reconciles over running time'),
    h(
      'p',
      { class: 'muted charts-note' },
      'Running time: wall-clock time since the session started, time held in the debugger left out. The controller’s clock is in the values under the cursor.',
    ),
    piled.length
      ? h(
          'ul',
          { class: 'pile-ups' },
          ...piled.map((p) =>
            h('li', { class: 'pile-up' }, `${pileUpInWords(p)}, from ${v.rel(p.at)}.`),
          ),
        )
      : null,
    h(
      'div',
      { class: 'chart-row' },
      plotFigure({
        id: 'reconcileRate',
        title: 'Reconcile rate',
        summary: ratesInWords(
          keys.map((k) => k.key),
          rate,
        ),
        yLabel: 'reconciles/s',
        series: keySeries,
        data: rate,
        origin,
        format: formatRate,
        xRange,
      }),
      plotFigure({
        id: 'reconcilesPerKey',
        title: 'Reconciles per key',
        summary: countsInWords(keys),
        yLabel: 'reconciles',
        series: keySeries,
        data: perKey,
        origin,
        format: count,
        xRange,
        integers: true,
      }),
      plotFigure({
        id: 'queueDepth',
        title: 'Queue depth',
        summary: latestInWords(charts.queueDepth, count),
        yLabel: 'requests',
        series: [{ label: 'queued', style: 'step' }],
        data: queueDepth,
        origin,
        format: count,
        xRange,
        integers: true,
      }),
      plotFigure({
        id: 'latency',
        title: 'Reconcile latency',
        summary: latestInWords(charts.latencyMs, formatDuration, 'last'),
        yLabel: 'latency',
        series: [{ label: 'reconcile', style: 'points' }],
        data: latency,
        origin,
        format: formatDuration,
        xRange,
      }),
    ),
  );
}
