/**
 * The Reconcile Debugger panel. It renders the DebuggerState the extension sends and posts the
 * user's intents back; it holds no reconcile logic of its own. On load it says `ready` and the
 * host answers with the whole state, so hiding and re-showing the panel loses nothing.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-table/index.js';
import '@vscode-elements/elements/dist/vscode-table-header/index.js';
import '@vscode-elements/elements/dist/vscode-table-header-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-body/index.js';
import '@vscode-elements/elements/dist/vscode-table-row/index.js';
import '@vscode-elements/elements/dist/vscode-table-cell/index.js';
import './debugger.css';
import {
  OUTCOMES,
  PHASES,
  emptyDebuggerState,
  type DebuggerState,
  type HostMessage,
  type Outcome,
  type Phase,
  type ReconcileView,
  type WebviewMessage,
} from '../../src/protocol';
import { sparkline } from './charts';
import { h, replaceChildren } from './dom';
import { formatClock, formatDuration } from './format';
import { yamlDiff } from './yamldiff';

interface VsCodeApi {
  postMessage(msg: WebviewMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
let state: DebuggerState = emptyDebuggerState();

/** When the user last pressed Step: the panel measures click-to-update itself (see render()). */
let stepPressedAt: number | undefined;
const post = (msg: WebviewMessage) => {
  if (msg.type === 'step') stepPressedAt = performance.now();
  vscode.postMessage(msg);
};
/** Times are shown from the session's start: t+5.214s reads better than an epoch. */
const rel = (ms: number) => `t+${formatClock(ms - state.origin)}`;

const PHASE_LABELS: Record<Phase, string> = {
  enqueue: 'Enqueue',
  dequeue: 'Dequeue',
  reconcile: 'Reconcile',
  read: 'Read',
  diff: 'Diff',
  write: 'Write',
  status: 'Status',
  result: 'Result',
};
const OUTCOME_LABELS: Record<Outcome, string> = {
  conflict: 'Conflict',
  forbidden: 'Forbidden',
  notFound: 'NotFound',
  error: 'Error',
  requeue: 'Requeue',
};

const root = document.getElementById('app')!;

function toolbar(): HTMLElement {
  const held = state.status === 'held' || state.status === 'paused';
  const live = state.status !== 'idle' && state.status !== 'stopped' && state.status !== 'error';
  const button = (
    label: string,
    key: string,
    type: WebviewMessage['type'],
    enabled: boolean,
    secondary = false,
  ) =>
    h(
      'vscode-button',
      {
        'aria-label': label,
        title: `${label} (${key})`,
        disabled: !enabled,
        secondary,
        onclick: () => post({ type } as WebviewMessage),
      },
      label,
    );
  return h(
    'div',
    { class: 'toolbar', role: 'toolbar', 'aria-label': 'Reconcile Debugger controls' },
    button('Step', 'F10', 'step', held),
    button('Continue', 'F5', 'continue', held, true),
    button('Pause', 'F6', 'pause', live && !held, true),
    button('Restart', 'Ctrl+Shift+F5', 'restart', state.status !== 'starting', true),
    h(
      'span',
      { class: `status status-${state.status}`, role: 'status', 'aria-live': 'polite' },
      state.message,
    ),
    h('span', { class: 'clock', title: 'Controller time' }, state.now ? rel(state.now) : ''),
  );
}

function findingsBanner(): HTMLElement | null {
  if (state.findings.length === 0) return null;
  return h(
    'div',
    { class: 'findings', role: 'alert' },
    ...state.findings.map((f, i) =>
      h(
        'details',
        { class: `finding finding-${f.kind}` },
        h('summary', {}, h('strong', {}, f.kind), ' — ', f.message),
        h('ul', {}, ...f.evidence.map((e) => h('li', {}, e))),
        h(
          'vscode-button',
          { secondary: true, onclick: () => post({ type: 'openFinding', index: i }) },
          'Show the reconcile',
        ),
      ),
    ),
  );
}

function pipeline(cur: ReconcileView | null): HTMLElement {
  const reached = new Set(cur?.phases.map((p) => p.phase) ?? []);
  const bp = new Set(state.breakpoints.phases);
  return h(
    'ol',
    { class: 'pipeline', 'aria-label': 'Reconcile phases' },
    ...PHASES.map((phase) => {
      const current = cur?.heldAt === phase;
      const cls = ['phase', current ? 'current' : '', reached.has(phase) ? 'reached' : ''].join(
        ' ',
      );
      return h(
        'li',
        { class: cls, 'aria-current': current ? 'step' : undefined, 'data-phase': phase },
        h(
          'button',
          {
            class: `bp ${bp.has(phase) ? 'on' : ''}`,
            title: `${bp.has(phase) ? 'Remove' : 'Add'} breakpoint on ${PHASE_LABELS[phase]}`,
            'aria-label': `Breakpoint on ${PHASE_LABELS[phase]}`,
            'aria-pressed': bp.has(phase) ? 'true' : 'false',
            onclick: () => toggleBreakpoint('phase', phase),
          },
          '●',
        ),
        h('span', { class: 'label' }, PHASE_LABELS[phase]),
      );
    }),
  );
}

function outcomeBreakpoints(): HTMLElement {
  const on = new Set(state.breakpoints.outcomes);
  return h(
    'div',
    { class: 'outcomes' },
    h('span', {}, 'Break on outcome:'),
    ...OUTCOMES.map((o) =>
      h('vscode-checkbox', {
        label: OUTCOME_LABELS[o],
        checked: on.has(o),
        onchange: () => toggleBreakpoint('outcome', o),
      }),
    ),
  );
}

function toggleBreakpoint(kind: 'phase' | 'outcome', value: string): void {
  const phases = new Set<Phase>(state.breakpoints.phases);
  const outcomes = new Set<Outcome>(state.breakpoints.outcomes);
  const set = (kind === 'phase' ? phases : outcomes) as Set<string>;
  if (set.has(value)) set.delete(value);
  else set.add(value);
  post({ type: 'setBreakpoints', phases: [...phases], outcomes: [...outcomes] });
}

function requestPane(cur: ReconcileView): HTMLElement {
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
      h('dd', {}, rel(cur.start)),
    ),
    h(
      'ol',
      { class: 'phase-log' },
      ...cur.phases.map((p) =>
        h('li', {}, h('strong', {}, PHASE_LABELS[p.phase]), ` ${rel(p.at)} — ${p.detail}`),
      ),
    ),
  );
}

function resultPane(cur: ReconcileView): HTMLElement {
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
                `${rel(r.nextAt)} (in ${formatDuration(r.delayMs ?? 0)})`,
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

function callsPane(cur: ReconcileView): HTMLElement {
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
                cell(c.code || '…', c.code >= 400 ? 'code-error' : 'code-ok'),
                cell(c.source),
                cell(c.latencyMs ? formatDuration(c.latencyMs) : '—'),
                cell(c.message && c.code >= 400 ? c.message : ''),
              ),
            ),
          ),
        ),
  );
}

function objectsPane(cur: ReconcileView): HTMLElement {
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

function timelinePane(): HTMLElement {
  return h(
    'section',
    { class: 'pane timeline', 'aria-label': 'Timeline' },
    h('h3', {}, 'Timeline of this key'),
    state.history.length === 0
      ? h('p', { class: 'muted' }, 'No earlier reconciles.')
      : h(
          'ol',
          {},
          ...state.history.map((r) =>
            h(
              'li',
              {},
              h(
                'button',
                {
                  class: `link ${state.current?.id === r.id ? 'selected' : ''}`,
                  onclick: () => post({ type: 'inspect', id: r.id }),
                },
                `${rel(r.start)} ${r.outcome}`,
              ),
            ),
          ),
        ),
  );
}

function chartsPane(): HTMLElement {
  return h(
    'section',
    { class: 'pane charts', 'aria-label': 'Charts' },
    h('h3', {}, 'Queue and latency'),
    sparkline('Queue depth', state.charts.queueDepth, ''),
    sparkline('Reconcile latency', state.charts.latencyMs, 'ms'),
  );
}

function render(): void {
  const cur = state.current;
  // Tells a reader (and the end-to-end tests) that a new hold arrived, even at the same phase.
  const hold = cur?.heldAt ? `${cur.id}:${cur.phases.length}:${cur.heldAt}` : '';
  if (stepPressedAt !== undefined && hold && hold !== root.dataset.hold) {
    root.dataset.stepMs = String(Math.round(performance.now() - stepPressedAt));
    stepPressedAt = undefined;
  }
  root.dataset.hold = hold;
  replaceChildren(
    root,
    toolbar(),
    findingsBanner(),
    pipeline(cur),
    outcomeBreakpoints(),
    cur
      ? h(
          'div',
          { class: 'grid' },
          requestPane(cur),
          resultPane(cur),
          callsPane(cur),
          objectsPane(cur),
          timelinePane(),
          chartsPane(),
        )
      : h('div', { class: 'empty' }, h('p', {}, state.message), chartsPane()),
  );
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const msg = event.data;
  if (msg?.type === 'state') {
    state = msg.state;
    render();
  }
});

window.addEventListener('keydown', (e) => {
  const map: Record<string, WebviewMessage['type']> = { F10: 'step', F5: 'continue', F6: 'pause' };
  const type = e.key === 'F5' && e.ctrlKey && e.shiftKey ? 'restart' : map[e.key];
  if (type) {
    e.preventDefault();
    post({ type } as WebviewMessage);
  }
});

render();
post({ type: 'ready' });
