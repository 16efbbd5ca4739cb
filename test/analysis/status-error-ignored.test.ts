/** status-error-ignored sees a failure that is checked and then dropped, also in a helper. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEdits, controller, findings, rulesOf } from './helpers';

const helper = (branch: string): string => `
func (r *WebAppReconciler) setReady(ctx context.Context, app *webv1.WebApp) (bool, error) {
	app.Status.Phase = "Ready"
	if err := r.Status().Update(ctx, app); err != nil {
${branch}
	}
	return false, nil
}`;
const call =
  'requeue, err := r.setReady(ctx, &app)\nif err != nil {\n\treturn ctrl.Result{}, err\n}\nif requeue {\n\treturn ctrl.Result{Requeue: true}, nil\n}';

describe('status-error-ignored through a helper that swallows the error', () => {
  it('flags a failure branch that ends in `return false, nil`, and fixes it', async () => {
    const text = controller(
      call,
      helper(
        '\t\tif apierrors.IsConflict(err) {\n\t\t\treturn true, nil\n\t\t}\n\t\treturn false, nil',
      ),
    );
    const fs = await findings(text);
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['status-error-ignored'],
    );
    assert.match(fs[0].message, /checked and then dropped/);
    const fixed = applyEdits(text, fs[0].fixes[0].edits);
    assert.match(fixed, /\t\t\treturn true, nil\n\t\t\}\n\t\treturn false, err\n/);
    assert.deepEqual(await rulesOf(fixed), []);
  });

  it('flags a failure that is only logged before returning nil', async () => {
    const text = controller(call, helper('\t\tlog.Error(err, "status")\n\t\treturn false, nil'));
    assert.deepEqual(await rulesOf(text), ['status-error-ignored']);
  });

  it('accepts a failure branch that returns the error', async () => {
    const text = controller(
      call,
      helper(
        '\t\tif apierrors.IsConflict(err) {\n\t\t\treturn true, nil\n\t\t}\n\t\treturn false, err',
      ),
    );
    assert.deepEqual(await rulesOf(text), []);
  });

  it('accepts a failure branch that asks for a requeue', async () => {
    assert.deepEqual(await rulesOf(controller(call, helper('\t\treturn true, nil'))), []);
  });

  it('accepts a failure wrapped into another error', async () => {
    const text = controller(
      call,
      helper('\t\twrapped := fmt.Errorf("status: %w", err)\n\t\treturn false, wrapped'),
    );
    assert.deepEqual(await rulesOf(text), []);
  });

  it('flags Reconcile returning a zero Result and nil after a failed status write', async () => {
    const body =
      'if err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, nil\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['status-error-ignored']);
  });

  it('accepts Reconcile requeueing after a failed status write', async () => {
    const body =
      'if err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{RequeueAfter: time.Second}, nil\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('says where a logged-and-dropped write runs: the flow, a defer or a goroutine', async () => {
    const check =
      'if err := r.Status().Update(ctx, &app); err != nil {\n\tlog.Error(err, "status")\n}';
    const wrap = (kw: string): string => `${kw} func() {\n${check.replace(/^/gm, '\t')}\n}()`;
    const [flow] = await findings(controller(check));
    const [deferred] = await findings(controller(wrap('defer')));
    const [goroutine] = await findings(controller(wrap('go')));
    assert.match(flow.message, /goes on to return success/);
    assert.match(deferred.message, /deferred write runs when Reconcile returns success/);
    assert.match(goroutine.message, /runs in a goroutine/);
    assert.equal(goroutine.fixes.length, 0);
  });
});
