/** The panel's controls: toolbar, findings banner, phase pipeline with breakpoints, outcome breakpoints. */
import {
  DEBUGGER_FAULTS,
  OUTCOMES,
  type DebuggerFault,
  PHASES,
  type FindingView,
  type Outcome,
  type Phase,
  type ReconcileView,
  type WebviewMessage,
} from '../../src/protocol';
import { DEBUGGER_FAULT_LABELS } from '../../src/vscode/model/debuggerfaults';
import { h } from './dom';
import { OUTCOME_LABELS, PHASE_LABELS } from './labels';
import type { View } from './view';

export function toolbar(v: View): HTMLElement {
  const held = v.state.status === 'held' || v.state.status === 'paused';
  const live =
    v.state.status !== 'idle' && v.state.status !== 'stopped' && v.state.status !== 'error';
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
        title: key ? `${label} (${key})` : label,
        disabled: !enabled,
        secondary,
        onclick: () => v.post({ type } as WebviewMessage),
      },
      label,
    );
  return h(
    'div',
    { class: 'toolbar', role: 'toolbar', 'aria-label': 'Reconcile Debugger controls' },
    button('Step', 'F10', 'step', held),
    button('Continue', 'F5', 'continue', held, true),
    button('Pause', 'F6', 'pause', live && !held, true),
    button('Restart', 'Ctrl+Shift+F5', 'restart', v.state.status !== 'starting', true),
    v.state.current?.location ? button('Show in source', '', 'showSource', true, true) : null,
    // One line: a long sentence ends in an ellipsis, and its title has it whole. With no
    // reconcile to show, the page's body says it in full instead (statusMessage), not both.
    v.state.current ? statusMessage(v, 'span') : null,
    h('span', { class: 'clock', title: 'Controller time' }, v.state.now ? v.rel(v.state.now) : ''),
  );
}

/** The session's status sentence ("Held at read of default/shop …", "The window was reloaded …"). */
export function statusMessage(v: View, tag: 'span' | 'p'): HTMLElement {
  return h(
    tag,
    {
      class: `status status-${v.state.status}`,
      role: 'status',
      'aria-live': 'polite',
      title: tag === 'span' ? v.state.message || undefined : undefined,
    },
    v.state.message,
  );
}

/**
 * Offered when the panel shows a session that no longer runs (it stopped, failed, or the window
 * was reloaded under it): one click runs it again, as Restart does.
 */
export function startAgain(v: View): HTMLElement | null {
  const { status, source } = v.state;
  if (!source || (status !== 'stopped' && status !== 'error')) return null;
  return h('vscode-button', { onclick: () => v.post({ type: 'restart' }) }, 'Start again');
}

/** Findings the user opened (by kind and request: a message's counts change), kept open across renders. */
const openFindings = new Set<string>();

export function findingsBanner(v: View): HTMLElement | null {
  if (v.state.findings.length === 0) return null;
  return h(
    'div',
    { class: 'findings', role: 'alert' },
    ...v.state.findings.map((f, i) =>
      h(
        'details',
        {
          class: `finding finding-${f.kind}`,
          open: openFindings.has(findingKey(f)),
          ontoggle: (e: Event) => {
            const key = findingKey(f);
            if ((e.currentTarget as HTMLDetailsElement).open) openFindings.add(key);
            else openFindings.delete(key);
          },
        },
        // One line until opened; its title has the whole message.
        h('summary', { title: f.message }, h('strong', {}, f.kind), ' — ', f.message),
        h('ul', {}, ...f.evidence.map((e) => h('li', {}, e))),
        h(
          'vscode-button',
          { secondary: true, onclick: () => v.post({ type: 'openFinding', index: i }) },
          'Show the reconcile',
        ),
      ),
    ),
  );
}

function findingKey(f: FindingView): string {
  return `${f.kind}|${f.request ? `${f.request.namespace}/${f.request.name}` : ''}|${f.message.slice(0, 40)}`;
}

export function pipeline(v: View, cur: ReconcileView | null): HTMLElement {
  const reached = new Set(cur?.phases.map((p) => p.phase) ?? []);
  const bp = new Set(v.state.breakpoints.phases);
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
            onclick: () => toggleBreakpoint(v, 'phase', phase),
          },
          '●',
        ),
        h('span', { class: 'label' }, PHASE_LABELS[phase]),
      );
    }),
  );
}

export function outcomeBreakpoints(v: View): HTMLElement {
  const on = new Set(v.state.breakpoints.outcomes);
  return h(
    'div',
    { class: 'outcomes' },
    h('span', {}, 'Break on outcome:'),
    ...OUTCOMES.map((o) =>
      h('vscode-checkbox', {
        label: OUTCOME_LABELS[o],
        checked: on.has(o),
        onchange: () => toggleBreakpoint(v, 'outcome', o),
      }),
    ),
  );
}

function toggleBreakpoint(v: View, kind: 'phase' | 'outcome', value: string): void {
  const phases = new Set<Phase>(v.state.breakpoints.phases);
  const outcomes = new Set<Outcome>(v.state.breakpoints.outcomes);
  const set = (kind === 'phase' ? phases : outcomes) as Set<string>;
  if (set.has(value)) set.delete(value);
  else set.add(value);
  v.post({ type: 'setBreakpoints', phases: [...phases], outcomes: [...outcomes] });
}

/** What each fault button reads: the code the call will meet (kube-apiserver's) and a word. */
const FAULT_BUTTON_TEXT: Record<DebuggerFault, string> = {
  conflict: '409 Conflict',
  quota: '403 Quota',
  throttle: '429 Throttled',
  internal: '500 Internal',
  timeout: '504 Timeout',
  delay: DEBUGGER_FAULT_LABELS.delay,
};

/**
 * "Fail the next call with…" / "Delay it": enabled while held before a write or status write of a
 * TypeScript reconciler, or at a Go operator's write, status write or server read, on the
 * embedded cluster (the host says which call in `faultTarget`).
 */
export function faultControls(v: View): HTMLElement {
  const target = v.state.faultTarget;
  return h(
    'div',
    {
      class: 'outcomes fault-controls',
      role: 'group',
      'aria-label': 'Inject a fault into the held call',
    },
    h(
      'span',
      {
        class: 'fault-target',
        title: target
          ? `The held call: ${target}`
          : 'Hold at a write or status write (or, for a Go operator, a read the API server answers) on the embedded cluster',
      },
      target ? `Fail the next call (${target}) with:` : 'Fail the next call with:',
    ),
    // The buttons keep one row at half a 1600 px screen: each shows its status code and a word,
    // its title the whole name.
    ...DEBUGGER_FAULTS.map((fault) =>
      h(
        'vscode-button',
        {
          secondary: true,
          disabled: !target,
          'aria-label':
            fault === 'delay' ? 'Delay it' : `Fail with ${DEBUGGER_FAULT_LABELS[fault]}`,
          title:
            fault === 'delay'
              ? `Delay it: ${DEBUGGER_FAULT_LABELS[fault]}`
              : DEBUGGER_FAULT_LABELS[fault],
          onclick: () => v.post({ type: 'injectFault', fault }),
        },
        FAULT_BUTTON_TEXT[fault],
      ),
    ),
  );
}
