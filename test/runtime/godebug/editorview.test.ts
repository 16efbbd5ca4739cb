import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { DapMessage } from '../../../src/runtime/godebug/dap';
import { EditorView } from '../../../src/runtime/godebug/editorview';

const MODULE = '/src/webapp';
const CR = '/gomod/sigs.k8s.io/controller-runtime@v0.24.1';
const CONTROLLER_GO = `${CR}/pkg/internal/controller/controller.go`;
const WRITE = 'sigs.k8s.io/controller-runtime/pkg/client.(*client).Create';

function view(): EditorView {
  return new EditorView(
    { functions: [WRITE], lines: new Map([[CONTROLLER_GO, [471, 479]]]) },
    MODULE,
  );
}

function response(request_seq: number, command: string, body: Record<string, unknown>) {
  return { seq: 90, type: 'response', request_seq, command, success: true, body } as DapMessage;
}

describe("Go debugger: the editor's view of Delve", () => {
  it('sets the phase breakpoints through Delve, and says which Delve refused', async () => {
    const v = view();
    const sent: Array<[string, unknown]> = [];
    const problems = await v.setInternal(<T>(command: string, args: unknown) => {
      sent.push([command, args]);
      const n = command === 'setFunctionBreakpoints' ? 1 : 2;
      return Promise.resolve({
        breakpoints: Array.from({ length: n }, (_, i) => ({
          id: sent.length * 10 + i,
          verified: !(command === 'setBreakpoints' && i === 1),
          message: 'could not find statement',
        })),
      } as T);
    });
    assert.deepEqual(sent, [
      ['setFunctionBreakpoints', { breakpoints: [{ name: WRITE }] }],
      [
        'setBreakpoints',
        { source: { path: CONTROLLER_GO }, breakpoints: [{ line: 471 }, { line: 479 }] },
      ],
    ]);
    assert.deepEqual(problems, [`${CONTROLLER_GO}:479: could not find statement`]);
    // Delve's later news of those breakpoints is not the editor's business.
    const event = { seq: 1, type: 'event', event: 'breakpoint', body: { breakpoint: { id: 20 } } };
    assert.equal(v.toEditor(event as DapMessage), undefined);
    const users = { seq: 2, type: 'event', event: 'breakpoint', body: { breakpoint: { id: 99 } } };
    assert.equal(v.toEditor(users as DapMessage), users);
  });

  it('keeps the phase breakpoints when the editor sets its own function breakpoints, and shows it only its own', () => {
    const v = view();
    const req = v.toAdapter({
      seq: 7,
      type: 'request',
      command: 'setFunctionBreakpoints',
      arguments: { breakpoints: [{ name: 'main.main' }] },
    });
    assert.deepEqual(req.arguments?.breakpoints, [{ name: 'main.main' }, { name: WRITE }]);
    const answer = v.toEditor(
      response(7, 'setFunctionBreakpoints', {
        breakpoints: [
          { id: 1, verified: true },
          { id: 2, verified: true },
        ],
      }),
    );
    assert.deepEqual(answer?.body?.breakpoints, [{ id: 1, verified: true }]);
    // The id Delve gave ours is now known as ours.
    const event = { seq: 3, type: 'event', event: 'breakpoint', body: { breakpoint: { id: 2 } } };
    assert.equal(v.toEditor(event as DapMessage), undefined);
  });

  it("adds the phase lines to the editor's breakpoints in controller-runtime's file, once each", () => {
    const v = view();
    const req = v.toAdapter({
      seq: 8,
      type: 'request',
      command: 'setBreakpoints',
      arguments: { source: { path: CONTROLLER_GO }, breakpoints: [{ line: 479 }], lines: [479] },
    });
    assert.deepEqual(req.arguments?.breakpoints, [{ line: 479 }, { line: 471 }]);
    const answer = v.toEditor(
      response(8, 'setBreakpoints', {
        breakpoints: [
          { id: 5, line: 479 },
          { id: 6, line: 471 },
        ],
      }),
    );
    assert.deepEqual(answer?.body?.breakpoints, [{ id: 5, line: 479 }]);
    // The user's own file goes through as it is.
    const mine = {
      seq: 9,
      type: 'request' as const,
      command: 'setBreakpoints',
      arguments: { source: { path: `${MODULE}/main.go` }, breakpoints: [{ line: 3 }] },
    };
    assert.equal(v.toAdapter(mine), mine);
  });

  it("shows a held phase in the user's frame: reason phase, controller-runtime's frames subtle", () => {
    const v = view();
    const stopped = {
      seq: 4,
      type: 'event',
      event: 'stopped',
      body: { reason: 'function breakpoint', threadId: 12, hitBreakpointIds: [2] },
    } as DapMessage;
    const frames = response(30, 'stackTrace', {
      stackFrames: [
        {
          id: 1,
          name: 'internal.(*CacheReader).Get',
          source: { path: `${CR}/pkg/cache/internal/cache_reader.go` },
        },
        {
          id: 2,
          name: 'controller.(*WebAppReconciler).Reconcile',
          source: { path: `${MODULE}/internal/controller/webapp_controller.go` },
        },
      ],
    });
    // A stop of the user's own (not held as a phase) is left alone.
    assert.equal(v.ownStop(stopped), stopped);
    assert.equal(v.toEditor(frames), frames);

    const held = v.heldStop(stopped, 'Held at read get Deployment default/blog', true);
    assert.deepEqual(held.body, {
      reason: 'phase',
      threadId: 12,
      description: 'Held at read get Deployment default/blog',
    });
    const shown = v.toEditor(frames)?.body?.stackFrames as Array<{ presentationHint?: string }>;
    assert.deepEqual(
      shown.map((f) => f.presentationHint),
      ['subtle', undefined],
    );
  });

  it("lists the held phase's goroutine first in the Call Stack, and leaves the user's own stops' order", () => {
    const v = view();
    const stopped = (threadId: number) =>
      ({
        seq: 4,
        type: 'event',
        event: 'stopped',
        body: { reason: 'breakpoint', threadId },
      }) as DapMessage;
    const threads = response(31, 'threads', {
      threads: [
        { id: 126, name: 'context.(*cancelCtx).propagateCancel' },
        { id: 12, name: 'controller.(*Controller).processNextWorkItem' },
        { id: 134, name: 'net.(*netFD).Read' },
      ],
    });
    const ids = (m: DapMessage | undefined) =>
      (m?.body?.threads as Array<{ id: number }>).map((t) => t.id);
    assert.deepEqual(ids(v.toEditor(threads)), [126, 12, 134]);
    v.heldStop(stopped(12), 'Held at write create Deployment default/blog', true);
    assert.deepEqual(ids(v.toEditor(threads)), [12, 126, 134]);
    v.ownStop(stopped(134));
    assert.deepEqual(ids(v.toEditor(threads)), [126, 12, 134]);
  });

  it('reports a held stop with no user frame (dequeue) as a step, so its top frame is shown', () => {
    const v = view();
    const stopped = {
      seq: 4,
      type: 'event',
      event: 'stopped',
      body: { reason: 'breakpoint', threadId: 12 },
    } as DapMessage;
    assert.equal(v.heldStop(stopped, 'Held at dequeue default/blog', false).body?.reason, 'step');
  });
});
