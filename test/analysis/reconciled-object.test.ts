/** The reconciled object is tracked when a helper fetches it with the request's key. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controller, findings, rulesOf } from './helpers';

const GET_APP = `
func (r *WebAppReconciler) getApp(ctx context.Context, key client.ObjectKey) (*webv1.WebApp, error) {
	app := &webv1.WebApp{}
	if err := r.Get(ctx, key, app); err != nil {
		return nil, err
	}
	return app, nil
}`;

/** A Reconcile whose object comes from getApp instead of its own Get. */
function fetchedInHelper(body: string, helper = GET_APP): string {
  return controller('', helper).replace(
    /\tvar app webv1\.WebApp\n\tif err := r\.Get\(ctx, req\.NamespacedName, &app\); err != nil \{\n\t\treturn ctrl\.Result\{\}, client\.IgnoreNotFound\(err\)\n\t\}\n\tapp\.Status\.ObservedGeneration = app\.Generation\n/,
    `\tapp, err := r.getApp(ctx, req.NamespacedName)\n\tif err != nil {\n\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)\n\t}\n${body
      .split('\n')
      .map((l) => `\t${l}`)
      .join('\n')}\n`,
  );
}

describe('objects fetched in a helper', () => {
  it('applies spec-write to the object a helper fetched with the request key', async () => {
    const text = fetchedInHelper(
      'app.Spec.Replicas = 2\nif err := r.Update(ctx, app); err != nil {\n\treturn ctrl.Result{}, err\n}',
    );
    assert.match(text, /r\.getApp\(ctx, req\.NamespacedName\)/);
    assert.deepEqual(await rulesOf(text), ['spec-write']);
  });

  it('does not take an object built by a helper that reads nothing for the reconciled one', async () => {
    const build = GET_APP.replace(
      '\tif err := r.Get(ctx, key, app); err != nil {\n\t\treturn nil, err\n\t}\n',
      '\tapp.Name = key.Name\n',
    );
    const text = fetchedInHelper(
      'app.Spec.Replicas = 2\nif err := r.Create(ctx, app); err != nil {\n\treturn ctrl.Result{}, err\n}\nif err := r.Update(ctx, app); err != nil {\n\treturn ctrl.Result{}, err\n}',
      build,
    );
    assert.ok(!(await rulesOf(text)).includes('spec-write'));
  });
});

describe('notfound-not-ignored through a fetching helper', () => {
  const returnsErr = (helper = GET_APP): string =>
    fetchedInHelper('', helper).replace(
      'return ctrl.Result{}, client.IgnoreNotFound(err)',
      'return ctrl.Result{}, err',
    );

  it('flags returning the error of a helper that reads the object and passes NotFound on', async () => {
    const fs = await findings(returnsErr());
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['notfound-not-ignored'],
    );
    assert.match(fs[0].message, /When app has been deleted getApp returns NotFound/);
  });

  it('accepts a helper that deals with NotFound itself', async () => {
    const helper = GET_APP.replace(
      '\t\treturn nil, err\n',
      '\t\tif apierrors.IsNotFound(err) {\n\t\t\treturn nil, nil\n\t\t}\n\t\treturn nil, err\n',
    );
    assert.deepEqual(await rulesOf(returnsErr(helper)), []);
  });

  it('accepts IgnoreNotFound on the helper’s error', async () => {
    assert.deepEqual(await rulesOf(fetchedInHelper('')), []);
  });
});
