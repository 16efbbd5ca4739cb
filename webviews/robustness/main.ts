/**
 * The robustness report panel. It renders the RobustnessView the extension sends — a row per
 * fault class — and posts the user's intents back (run again, open the debugger at a row's
 * reconcile); it computes nothing itself. On load it says `ready` and gets the whole view.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import '../base.css';
import './robustness.css';
import type {
  RobustnessHostMessage,
  RobustnessRow,
  RobustnessView,
  RobustnessWebviewMessage,
} from '../../src/protocol';
import { h, replaceChildren } from '../debugger/dom';

interface VsCodeApi {
  postMessage(msg: RobustnessWebviewMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post = (msg: RobustnessWebviewMessage) => vscode.postMessage(msg);
const root = document.getElementById('app')!;

let view: RobustnessView = {
  status: 'running',
  message: 'Waiting for the report…',
  reconciler: null,
  baseline: null,
  rows: [],
};

function header(): HTMLElement {
  const running = view.status === 'running';
  return h(
    'div',
    { class: 'toolbar', role: 'toolbar', 'aria-label': 'Robustness report' },
    h('h2', {}, 'Robustness report', view.reconciler ? ` — ${view.reconciler}` : ''),
    running ? h('vscode-progress-ring', { 'aria-label': 'Running' }) : null,
    h(
      'vscode-button',
      { secondary: true, disabled: running, onclick: () => post({ type: 'rerun' }) },
      'Run again',
    ),
  );
}

function baseline(): HTMLElement | null {
  const b = view.baseline;
  if (!b) return null;
  return h(
    'p',
    { class: 'baseline' },
    h('strong', {}, 'Baseline (no faults): '),
    b.unsettled
      ? `${b.reconciles} reconciles, ${b.apiCalls} API calls, ${b.objects} objects; ${b.unsettled}. `
      : `${b.reconciles} reconciles, ${b.apiCalls} API calls, steady at ${b.steadyAt}, ${b.objects} objects. `,
    'Each fault class below runs from the same start and is judged against its final state.',
  );
}

/** The mark, its class and its words: ≈ is a match of a state cut off before it settled. */
const VERDICTS = {
  converged: { mark: '✓', class: 'yes', label: 'converged' },
  diverged: { mark: '✗', class: 'no', label: 'did not converge' },
  unsettled: {
    mark: '≈',
    class: 'unsettled',
    label: "in the baseline's state when cut off, not settled: convergence not known",
  },
} as const;

function row(r: RobustnessRow): HTMLElement {
  const v = VERDICTS[r.verdict];
  return h(
    'tr',
    { 'data-fault': r.fault, class: r.verdict },
    h('th', { scope: 'row' }, h('div', {}, r.title), h('div', { class: 'mono muted' }, r.fault)),
    h(
      'td',
      { class: 'verdict' },
      h('span', { class: v.class, 'aria-label': v.label, title: v.label }, v.mark),
    ),
    h('td', { class: 'num' }, r.timeToConverge),
    h(
      'td',
      { class: 'num' },
      `${r.reconciles} `,
      h('span', { class: 'delta' }, `(${r.extraReconciles})`),
    ),
    h(
      'td',
      { class: 'num' },
      `${r.apiCalls} `,
      h('span', { class: 'delta' }, `(${r.extraApiCalls})`),
    ),
    h(
      'td',
      { class: 'findings' },
      r.findings.length
        ? h('ul', {}, ...r.findings.map((f) => h('li', {}, f)))
        : h('span', { class: 'muted' }, 'none'),
      r.diff
        ? h(
            'details',
            { open: true },
            h('summary', {}, 'Diff against the baseline'),
            h('pre', { class: 'diff' }, r.diff),
          )
        : null,
      r.wentWrong
        ? h(
            'p',
            { class: 'went-wrong' },
            h(
              'a',
              {
                href: '#',
                class: 'open-debugger',
                onclick: (e: Event) => {
                  e.preventDefault();
                  post({ type: 'openInDebugger', fault: r.fault });
                },
              },
              'Open in debugger at the reconcile where it went wrong',
            ),
            h('span', { class: 'muted' }, ` — ${r.wentWrong.label}`),
          )
        : null,
    ),
  );
}

function table(): HTMLElement | null {
  if (!view.rows.length) return null;
  return h(
    'table',
    { class: 'report' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...[
          'Fault',
          'Converged',
          'Time to converge',
          'Reconciles (vs baseline)',
          'API calls (vs baseline)',
          'Findings',
        ].map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h('tbody', {}, ...view.rows.map(row)),
  );
}

function render(): void {
  root.dataset.status = view.status;
  replaceChildren(
    root,
    header(),
    view.runtime ? h('p', { class: 'runtime' }, h('strong', {}, 'Runtime: '), view.runtime) : null,
    h(
      'p',
      { class: `status status-${view.status}`, role: 'status', 'aria-live': 'polite' },
      view.message,
    ),
    view.note ? h('p', { class: 'note muted' }, view.note) : null,
    baseline(),
    table(),
  );
}

window.addEventListener('message', (event: MessageEvent<RobustnessHostMessage>) => {
  if (event.data?.type === 'report') {
    view = event.data.view;
    render();
  }
});

render();
post({ type: 'ready' });
