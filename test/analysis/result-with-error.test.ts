/** result-with-error follows a Result through the variable that holds it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEdits, controller, findings, rulesOf } from './helpers';

const failing = (ret: string): string => `if err := r.Update(ctx, &app); err != nil {\n\t${ret}\n}`;

describe('result-with-error through variables', () => {
  it('flags `rr := ctrl.Result{RequeueAfter: d}` returned beside a non-nil error', async () => {
    const text = controller(
      `rr := ctrl.Result{RequeueAfter: 30 * time.Second}\n${failing('return rr, err')}\n_ = rr`,
    );
    const fs = await findings(text);
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['result-with-error'],
    );
    assert.match(fs[0].message, /held by rr/);
    assert.match(applyEdits(text, fs[0].fixes[0].edits), /\t\treturn ctrl\.Result\{\}, err\n/);
  });

  it('flags a Result declared with var and an initial value', async () => {
    const body = `var rr = ctrl.Result{Requeue: true}\n${failing('return rr, err')}`;
    assert.deepEqual(await rulesOf(controller(body)), ['result-with-error']);
  });

  it('accepts `res, err := helper(); return res, err`', async () => {
    const extra = `
func (r *WebAppReconciler) step(ctx context.Context) (ctrl.Result, error) {
	return ctrl.Result{}, nil
}`;
    const body =
      'res, err := r.step(ctx)\nif err != nil {\n\treturn res, err\n}\nif res.Requeue {\n\treturn res, nil\n}';
    assert.deepEqual(await rulesOf(controller(body, extra)), []);
  });

  it('accepts a variable that may still hold the zero Result', async () => {
    const body = `var rr ctrl.Result\nif app.Spec.Replicas > 0 {\n\trr = ctrl.Result{Requeue: true}\n}\n${failing('return rr, err')}`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('accepts a variable whose field is changed before the return', async () => {
    const body = `rr := ctrl.Result{Requeue: true}\nrr.Requeue = app.Spec.Replicas > 0\n${failing('return rr, err')}`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('flags a requeue returned in the else of `if err == nil`, where err is not nil', async () => {
    const body = `if err := r.Update(ctx, &app); err == nil {\n\tapp.Status.Ready = true\n} else {\n\treturn ctrl.Result{RequeueAfter: time.Minute}, err\n}`;
    assert.deepEqual(await rulesOf(controller(body)), ['result-with-error']);
  });

  it('accepts a requeue in the else of `if err == nil && ok`, where err may be nil', async () => {
    const body = `ok := app.Spec.Replicas > 0\nif err := r.Update(ctx, &app); err == nil && ok {\n\tapp.Status.Ready = true\n} else {\n\treturn ctrl.Result{RequeueAfter: time.Minute}, err\n}`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('accepts a Result variable returned with nil', async () => {
    const body = 'rr := ctrl.Result{RequeueAfter: time.Minute}\nreturn rr, nil';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
});

describe('result-with-error message', () => {
  it('quotes a Result literal written over several lines on one line', async () => {
    const body = failing('return ctrl.Result{\n\t\tRequeueAfter: time.Minute,\n\t}, err');
    const [f] = await findings(controller(body));
    assert.match(f.message, /ignores ctrl\.Result\{RequeueAfter: time\.Minute\} when/);
  });
});
