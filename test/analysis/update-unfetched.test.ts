/**
 * update-unfetched says what the API server really does with an Update that carries no
 * resourceVersion: that depends on the kind's update strategy (AllowUnconditionalUpdate).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controller, findings } from './helpers';

const update = (decl: string): string =>
  `${decl}\nif err := r.Update(ctx, obj); err != nil {\n\treturn ctrl.Result{}, err\n}`;

async function message(text: string): Promise<string> {
  const fs = await findings(text);
  assert.deepEqual(
    fs.map((f) => f.rule),
    ['update-unfetched'],
  );
  return fs[0].message;
}

describe('update-unfetched message by kind', () => {
  it('says a Deployment is accepted and overwrites what others wrote', async () => {
    const m = await message(
      controller(
        update(
          'obj := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}',
        ),
      ),
    );
    assert.match(m, /accepts this Update of a Deployment without one/);
    assert.match(m, /overwriting what others wrote/);
    assert.doesNotMatch(m, /422/);
  });

  it('says a custom resource is rejected with 422 and the API server message', async () => {
    const m = await message(
      controller(
        update(
          'obj := &webv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: app.Namespace}}',
        ),
      ),
    );
    assert.match(
      m,
      /rejects this Update of a custom resource \(WebApp\) \(422: metadata\.resourceVersion: Invalid value: 0: must be specified for an update\)/,
    );
  });

  it('says a Lease is rejected: its strategy does not allow unconditional updates', async () => {
    const text = controller(
      update(
        'obj := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}',
      ),
    ).replace(
      '\tcorev1 "k8s.io/api/core/v1"\n',
      '\tcoordinationv1 "k8s.io/api/coordination/v1"\n\tcorev1 "k8s.io/api/core/v1"\n',
    );
    assert.match(await message(text), /rejects this Update of a Lease \(422/);
  });

  it('names the builder and judges the kind of the literal it returns', async () => {
    const extra = `
func build(app *webv1.WebApp) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
}`;
    const m = await message(controller(update('obj := build(&app)'), extra));
    assert.match(m, /built locally by build/);
    assert.match(m, /accepts this Update of a Deployment/);
  });
});
