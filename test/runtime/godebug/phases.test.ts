import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  kindOfType,
  objectMetaOf,
  parseNamespacedName,
  parseResult,
  queueDecision,
  shortFunction,
} from '../../../src/runtime/godebug/phases';

describe('Go debugger phases from what Delve prints', () => {
  it('reads the request out of reconcile.Request and of a bare NamespacedName', () => {
    assert.deepEqual(
      parseNamespacedName(
        'reconcile.Request {NamespacedName: types.NamespacedName {Namespace: "default", Name: "blog"}}',
      ),
      { namespace: 'default', name: 'blog' },
    );
    assert.deepEqual(parseNamespacedName('types.NamespacedName {Namespace: "", Name: "node-1"}'), {
      namespace: '',
      name: 'node-1',
    });
  });

  it('reads RequeueAfter whether Delve names it after a constant or prints nanoseconds', () => {
    const named = parseResult(
      'reconcile.Result {Requeue: false, RequeueAfter: k8s.io/klog/v2.flushInterval (5000000000), Priority: *int nil}',
      'error nil',
    );
    assert.equal(named.requeueAfterMs, 5000);
    assert.equal(named.error, null);
    const plain = parseResult(
      'reconcile.Result {Requeue: false, RequeueAfter: 30000000000}',
      'error nil',
    );
    assert.equal(plain.requeueAfterMs, 30_000);
  });

  it('decides what the queue does as reconcileHandler does', () => {
    const r = (result: string, err = 'error nil') => queueDecision(parseResult(result, err));
    assert.deepEqual(r('reconcile.Result {Requeue: false, RequeueAfter: 5000000000}'), {
      action: 'requeueAfter',
      delayMs: 5000,
    });
    assert.deepEqual(r('reconcile.Result {Requeue: true, RequeueAfter: 0}'), {
      action: 'rateLimited',
    });
    assert.deepEqual(r('reconcile.Result {Requeue: false, RequeueAfter: 0}'), { action: 'forget' });
    // An error wins over RequeueAfter (the Result is ignored) …
    assert.deepEqual(
      r(
        'reconcile.Result {Requeue: false, RequeueAfter: 5000000000}',
        'error(*errors.StatusError) *{…}',
      ),
      { action: 'rateLimited' },
    );
    // … and a TerminalError is not retried.
    assert.deepEqual(
      r(
        'reconcile.Result {}',
        'error(reconcile.terminalError) {err: error(*errors.errorString) *{s: "bad"}}',
      ),
      { action: 'none' },
    );
  });

  it('names the object kind from its Go type and frames without type parameters', () => {
    assert.equal(kindOfType('client.Object(*v1.Deployment)'), 'Deployment');
    assert.equal(
      kindOfType(
        'sigs.k8s.io/controller-runtime/pkg/client.Object(*k8s.io/api/apps/v1.Deployment)',
      ),
      'Deployment',
    );
    assert.equal(
      shortFunction(
        'controller.(*Controller[go.shape.struct { k8s.io/apimachinery/pkg/types.NamespacedName }]).reconcileHandler',
      ),
      'controller.(*Controller).reconcileHandler',
    );
    assert.equal(
      shortFunction(
        'sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).reconcileHandler',
      ),
      'controller.(*Controller).reconcileHandler',
    );
  });

  it('reads namespace and name from an object printed inline, and says when they were cut', () => {
    assert.deepEqual(
      objectMetaOf(
        'client.Object(*v1.Deployment) *{TypeMeta: v1.TypeMeta {Kind: "", APIVersion: ""}, ObjectMeta: v1.ObjectMeta {Name: "blog", GenerateName: "", Namespace: "default", SelfLink: ""...',
      ),
      { namespace: 'default', name: 'blog' },
    );
    assert.equal(
      objectMetaOf('client.Object(*v1.Deployment) *{TypeMeta: v1.TypeMeta {...}, ...}'),
      undefined,
    );
  });
});
