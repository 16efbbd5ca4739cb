/**
 * spec-write follows the order of statements: only a spec change that a later write sends to the
 * API server is reported. Each negative case is a false alarm seen on real operators.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controller, findings, rulesOf } from './helpers';

const UPDATE = 'if err := r.Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';

describe('spec-write follows control flow', () => {
  it('flags a change that a later Update sends, and names the write', async () => {
    const fs = await findings(controller(`app.Spec.Replicas = 3\n${UPDATE}`));
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['spec-write'],
    );
    assert.match(fs[0].message, /the Update that follows/);
  });

  it('accepts an in-memory default set after the last write', async () => {
    const body = `${UPDATE}\nif app.Spec.Replicas == 0 {\n\tapp.Spec.Replicas = 1\n}\nr.Recorder.Event(&app, "Normal", "Synced", fmt.Sprint(app.Spec.Replicas))`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('accepts a change made before the patch base is copied', async () => {
    const body =
      'app.Spec.Replicas = 1\nbase := app.DeepCopy()\napp.Labels = map[string]string{"a": "b"}\nif err := r.Patch(ctx, &app, client.MergeFrom(base)); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('flags a change made after the patch base is copied', async () => {
    const body =
      'base := app.DeepCopy()\napp.Spec.Replicas = 1\nif err := r.Patch(ctx, &app, client.MergeFrom(base)); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['spec-write']);
  });

  it('accepts a change before a patch against an inline copy', async () => {
    const body =
      'app.Spec.Replicas = 1\nif err := r.Patch(ctx, &app, client.MergeFrom(app.DeepCopy())); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('accepts a change in a branch that returns before the write', async () => {
    const body = `if app.Spec.Replicas < 0 {\n\tapp.Spec.Replicas = 0\n\treturn ctrl.Result{}, nil\n}\n${UPDATE}`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('accepts a change in one arm of an if and the write in the other', async () => {
    const body = `if app.Spec.Replicas < 0 {\n\tapp.Spec.Replicas = 0\n} else {\n\t${UPDATE.replace(/\n/g, '\n\t')}\n}`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('accepts a change in one switch case and the write in another', async () => {
    const body = `switch app.Status.Phase {\ncase "":\n\tapp.Spec.Replicas = 1\ncase "Ready":\n\t${UPDATE.replace(/\n/g, '\n\t')}\n}`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('flags a change in a branch that falls through to the write', async () => {
    const body = `if app.Spec.Replicas < 0 {\n\tapp.Spec.Replicas = 0\n}\n${UPDATE}`;
    assert.deepEqual(await rulesOf(controller(body)), ['spec-write']);
  });

  it('flags a change that the write earlier in a loop sends on the next iteration', async () => {
    const body = `for i := 0; i < 3; i++ {\n\t${UPDATE.replace(/\n/g, '\n\t')}\n\tapp.Spec.Replicas++\n}`;
    assert.deepEqual(await rulesOf(controller(body)), ['spec-write']);
  });

  it('accepts a defaulting helper called after the last write', async () => {
    const extra = `
func effective(app *webv1.WebApp) {
	if app.Spec.Replicas == 0 {
		app.Spec.Replicas = 1
	}
}`;
    assert.deepEqual(await rulesOf(controller(`${UPDATE}\neffective(&app)`, extra)), []);
  });

  it('flags a change followed by a helper that updates the object', async () => {
    const extra = `
func (r *WebAppReconciler) save(ctx context.Context, app *webv1.WebApp) error {
	return r.Update(ctx, app)
}`;
    const body =
      'app.Spec.Replicas = 2\nif err := r.save(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    const fs = await findings(controller(body, extra));
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['spec-write'],
    );
    assert.match(fs[0].message, /save \(Update\)/);
  });

  it('accepts a change followed by a helper that patches against its own copy', async () => {
    const extra = `
func (r *WebAppReconciler) label(ctx context.Context, app *webv1.WebApp) error {
	base := app.DeepCopy()
	app.Labels = map[string]string{"owned": "true"}
	return r.Patch(ctx, app, client.MergeFrom(base))
}`;
    const body =
      'app.Spec.Replicas = 2\nif err := r.label(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body, extra)), []);
  });

  it('accepts a change to a copy passed by value to a helper', async () => {
    const extra = `
func effectiveCopy(app webv1.WebApp) int32 {
	app.Spec.Replicas++
	return app.Spec.Replicas
}`;
    assert.deepEqual(await rulesOf(controller(`_ = effectiveCopy(app)\n${UPDATE}`, extra)), []);
  });
});

describe('spec-write and patches held in a variable or made by a callback helper', () => {
  const PATCH_HELPER = `
func (r *WebAppReconciler) patch(ctx context.Context, app *webv1.WebApp, mutate func(app *webv1.WebApp)) error {
	patch := client.MergeFrom(app.DeepCopy())
	mutate(app)
	return r.Patch(ctx, app, patch)
}`;

  it('accepts a change made before `patch := client.MergeFrom(obj.DeepCopy())`', async () => {
    const body =
      'app.Spec.Replicas = 1\npatch := client.MergeFrom(app.DeepCopy())\nif err := r.Patch(ctx, &app, patch); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('flags a change made after `patch := client.MergeFrom(obj.DeepCopy())`', async () => {
    const body =
      'patch := client.MergeFrom(app.DeepCopy())\napp.Spec.Replicas = 1\nif err := r.Patch(ctx, &app, patch); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['spec-write']);
  });

  it('flags a change in a closure handed to a helper that patches after copying its base', async () => {
    const body =
      'if err := r.patch(ctx, &app, func(app *webv1.WebApp) {\n\tapp.Spec.Replicas = 1\n}); err != nil {\n\treturn ctrl.Result{}, err\n}';
    const fs = await findings(controller(body, PATCH_HELPER));
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['spec-write'],
    );
    assert.match(fs[0].message, /the patch \(Patch\) that follows/);
  });

  it('accepts a change made before calling that helper with a closure that leaves spec alone', async () => {
    const body =
      'app.Spec.Replicas = 1\nif err := r.patch(ctx, &app, func(app *webv1.WebApp) {\n\tapp.Labels = nil\n}); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body, PATCH_HELPER)), []);
  });
});
