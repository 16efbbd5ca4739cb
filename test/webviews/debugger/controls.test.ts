import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { emptyDebuggerState, OUTCOMES, PHASES, type SessionStatus } from '../../../src/protocol';
import {
  faultControls,
  findingsBanner,
  outcomeBreakpoints,
  pipeline,
  startAgain,
  statusMessage,
  toolbar,
} from '../../../webviews/debugger/controls';
import { click, labelled, text, useDom, viewOf } from './dom';
import { heldReconcile, heldState } from './states';

useDom();

const enabled = (el: Element | null) => el !== null && !el.hasAttribute('disabled');

describe('the toolbar', () => {
  it('offers Step and Continue only while a reconcile is held, Pause only while it runs', () => {
    const cases: Array<[SessionStatus, boolean, boolean]> = [
      ['held', true, false],
      ['paused', true, false],
      ['running', false, true],
      ['stopped', false, false],
      ['idle', false, false],
    ];
    for (const [status, stepping, pausing] of cases) {
      const bar = toolbar(viewOf(heldState({ status })));
      assert.equal(enabled(labelled(bar, 'Step')), stepping, `Step when ${status}`);
      assert.equal(enabled(labelled(bar, 'Continue')), stepping, `Continue when ${status}`);
      assert.equal(enabled(labelled(bar, 'Pause')), pausing, `Pause when ${status}`);
    }
  });

  it('posts the intent of the button pressed', () => {
    const view = viewOf(heldState());
    const bar = toolbar(view);
    click(labelled(bar, 'Step'));
    click(labelled(bar, 'Continue'));
    click(labelled(bar, 'Restart'));
    assert.deepEqual(view.posted, [{ type: 'step' }, { type: 'continue' }, { type: 'restart' }]);
  });

  it('shows the status sentence, and Show in source only when the backend knows the line', () => {
    const bar = toolbar(viewOf(heldState()));
    assert.match(text(bar.querySelector('[role="status"]')), /Held at Write/);
    assert.equal(labelled(bar, 'Show in source'), null);
    const located = heldState({
      current: heldReconcile({ location: { file: '/w/r.ts', line: 12 } }),
    });
    assert.ok(labelled(toolbar(viewOf(located)), 'Show in source'));
  });
});

describe('the status sentence', () => {
  it('is in the toolbar with its whole text as the title while a reconcile is shown', () => {
    const status = toolbar(viewOf(heldState())).querySelector('[role="status"]');
    assert.equal(status?.getAttribute('title'), text(status));
  });

  it('is said once, in the page, when there is no reconcile to show (a reload)', () => {
    const view = viewOf(
      heldState({ status: 'stopped', current: null, message: 'The window was reloaded …' }),
    );
    assert.equal(toolbar(view).querySelector('[role="status"]'), null);
    const p = statusMessage(view, 'p');
    assert.equal(p.tagName, 'P');
    assert.equal(text(p), 'The window was reloaded …');
    assert.ok(p.classList.contains('status-stopped'));
  });
});

describe('the panel before its session arrives', () => {
  it('says it waits for the session, never to run the command that opened it', () => {
    const said = text(statusMessage(viewOf(emptyDebuggerState()), 'p'));
    assert.match(said, /^Waiting for Reconcile Studio to send this panel its session/);
    assert.doesNotMatch(said, /Open Reconcile Debugger/);
  });
});

describe('the findings banner', () => {
  it('is absent without findings', () => {
    assert.equal(findingsBanner(viewOf(heldState())), null);
  });

  it('shows each finding with its evidence and opens the reconcile it is about', () => {
    const view = viewOf(
      heldState({
        findings: [
          {
            kind: 'hot-loop',
            message: 'default/shop reconciled 19 times by its own writes',
            request: { namespace: 'default', name: 'shop' },
            evidence: ['status update bumped resourceVersion', 'requeued 19 times'],
          },
        ],
      }),
    );
    const banner = findingsBanner(view)!;
    assert.match(text(banner), /hot-loop.*reconciled 19 times by its own writes/);
    assert.deepEqual(Array.from(banner.querySelectorAll('li')).map(text), [
      'status update bumped resourceVersion',
      'requeued 19 times',
    ]);
    click(banner.querySelector('vscode-button'));
    assert.deepEqual(view.posted, [{ type: 'openFinding', index: 0 }]);
  });
});

describe('the phase pipeline', () => {
  it('shows every phase in order, marks the reached ones and the one held', () => {
    const list = pipeline(viewOf(heldState()), heldReconcile());
    const items = Array.from(list.querySelectorAll('li'));
    assert.deepEqual(
      items.map((li) => li.getAttribute('data-phase')),
      [...PHASES],
    );
    const held = items.filter((li) => li.getAttribute('aria-current') === 'step');
    assert.deepEqual(
      held.map((li) => li.getAttribute('data-phase')),
      ['write'],
    );
    const reached = items.filter((li) => li.classList.contains('reached'));
    assert.equal(reached.length, 6, 'enqueue through write');
  });

  it('shows the phase breakpoints and toggles one when clicked', () => {
    const view = viewOf(heldState());
    const list = pipeline(view, heldReconcile());
    const pressed = Array.from(list.querySelectorAll('[aria-pressed="true"]')).map((b) =>
      b.getAttribute('aria-label'),
    );
    assert.deepEqual(pressed, ['Breakpoint on Write']);
    click(labelled(list, 'Breakpoint on Read'));
    click(labelled(list, 'Breakpoint on Write'));
    assert.deepEqual(view.posted, [
      { type: 'setBreakpoints', phases: ['write', 'read'], outcomes: ['conflict'] },
      { type: 'setBreakpoints', phases: [], outcomes: ['conflict'] },
    ]);
  });

  it('shows no phase reached before any reconcile', () => {
    const list = pipeline(viewOf(heldState({ current: null })), null);
    assert.equal(list.querySelectorAll('.reached').length, 0);
    assert.equal(list.querySelectorAll('[aria-current]').length, 0);
  });
});

describe('the outcome breakpoints', () => {
  it('offers every outcome, checked as set, and toggles one when changed', () => {
    const view = viewOf(heldState());
    const boxes = Array.from(outcomeBreakpoints(view).querySelectorAll('vscode-checkbox'));
    assert.equal(boxes.length, OUTCOMES.length);
    const checked = boxes.filter((b) => b.hasAttribute('checked'));
    assert.deepEqual(
      checked.map((b) => b.getAttribute('label')),
      ['Conflict'],
    );
    const notFound = boxes.find((b) => b.getAttribute('label') === 'NotFound')!;
    notFound.dispatchEvent(
      new (notFound.ownerDocument.defaultView as never as typeof globalThis).Event('change'),
    );
    assert.deepEqual(view.posted, [
      { type: 'setBreakpoints', phases: ['write'], outcomes: ['conflict', 'notFound'] },
    ]);
  });
});

describe('the fault controls', () => {
  it('are disabled until the host names a held call to fail', () => {
    const controls = faultControls(viewOf(heldState()));
    assert.ok(!enabled(labelled(controls, 'Fail with Conflict')));
    assert.doesNotMatch(text(controls), /update deployments/);
  });

  it('name the held call and inject the fault chosen', () => {
    const view = viewOf(heldState({ faultTarget: 'update deployments default/shop' }));
    const controls = faultControls(view);
    assert.match(text(controls), /update deployments default\/shop/);
    click(labelled(controls, 'Fail with Conflict'));
    click(labelled(controls, 'Delay it'));
    assert.deepEqual(view.posted, [
      { type: 'injectFault', fault: 'conflict' },
      { type: 'injectFault', fault: 'delay' },
    ]);
  });

  it('read as the code each call will meet, with the whole name as the title', () => {
    const controls = faultControls(viewOf(heldState({ faultTarget: 'create pods default/p' })));
    const conflict = labelled(controls, 'Fail with Conflict');
    assert.equal(text(conflict), '409 Conflict');
    assert.equal(conflict?.getAttribute('title'), 'Conflict');
    assert.equal(text(labelled(controls, 'Fail with Forbidden by quota')), '403 Quota');
    assert.equal(text(labelled(controls, 'Delay it')), 'Delay 2s');
  });
});

describe('Start again', () => {
  it('is offered when the session shown no longer runs, and restarts it', () => {
    const view = viewOf(heldState({ status: 'stopped', current: null }));
    const button = startAgain(view);
    assert.match(text(button), /Start again/);
    click(button);
    assert.deepEqual(view.posted, [{ type: 'restart' }]);
    assert.ok(startAgain(viewOf(heldState({ status: 'error', current: null }))));
  });

  it('is not offered while the session runs, or when there is no session to start', () => {
    assert.equal(startAgain(viewOf(heldState())), null);
    assert.equal(startAgain(viewOf(heldState({ status: 'running' }))), null);
    assert.equal(startAgain(viewOf(heldState({ status: 'stopped', source: undefined }))), null);
  });
});
