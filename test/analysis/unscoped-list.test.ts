/** unscoped-list looks inside the options: an empty one narrows nothing. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEdits, controller, findings, rulesOf } from './helpers';

const list = (opts: string): string =>
  controller(
    `var pods corev1.PodList\nif err := r.List(ctx, &pods${opts}); err != nil {\n\treturn ctrl.Result{}, err\n}`,
  );

describe('unscoped-list options', () => {
  for (const opts of [
    ', &client.ListOptions{}',
    ', client.ListOptions{Limit: 100}',
    ', &client.ListOptions{Namespace: ""}',
    ', client.MatchingLabels{}',
    ', client.InNamespace("")',
  ]) {
    it(`flags a List whose only option is \`${opts.slice(2)}\``, async () => {
      assert.deepEqual(await rulesOf(list(opts)), ['unscoped-list']);
    });
  }
  for (const opts of [
    ', &client.ListOptions{Namespace: app.Namespace}',
    ', &client.ListOptions{LabelSelector: sel}',
    ', client.MatchingLabels{"app": app.Name}',
    ', client.InNamespace(app.Namespace)',
    ', opts',
  ]) {
    it(`accepts a List scoped by \`${opts.slice(2)}\``, async () => {
      assert.deepEqual(await rulesOf(list(opts)), []);
    });
  }
});

describe('unscoped-list quick fix', () => {
  it('scopes a List of a namespaced kind to the reconciled object’s namespace', async () => {
    const text = list(', client.Limit(50)');
    const [f] = await findings(text);
    assert.equal(f.fixes[0].title, "Scope the List to app's namespace");
    const fixed = applyEdits(text, f.fixes[0].edits);
    assert.match(
      fixed,
      /r\.List\(ctx, &pods, client\.Limit\(50\), client\.InNamespace\(app\.Namespace\)\)/,
    );
    assert.deepEqual(await rulesOf(fixed), []);
  });

  it('offers nothing for a List of a kind it does not know to be namespaced', async () => {
    const text = controller(
      'var apps webv1.WebAppList\nif err := r.List(ctx, &apps); err != nil {\n\treturn ctrl.Result{}, err\n}',
    );
    const [f] = await findings(text);
    assert.equal(f.rule, 'unscoped-list');
    assert.deepEqual(f.fixes, []);
  });
});

describe('unscoped-list leaves alone what cannot be scoped', () => {
  it('accepts a List of a cluster-scoped kind (all namespaces, matched against patterns)', async () => {
    const text = controller(
      'namespaces := &corev1.NamespaceList{}\nif err := r.List(ctx, namespaces, &client.ListOptions{}); err != nil {\n\treturn ctrl.Result{}, err\n}',
    );
    assert.deepEqual(await rulesOf(text), []);
  });

  it('accepts a generic helper that lists into a client.ObjectList parameter', async () => {
    const extra = `
func (r *WebAppReconciler) all(ctx context.Context, list client.ObjectList) error {
	return r.List(ctx, list)
}`;
    const body =
      'if err := r.all(ctx, &corev1.PodList{}); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body, extra)), []);
  });

  it('still flags a List of a namespaced kind into a typed parameter', async () => {
    const extra = `
func (r *WebAppReconciler) pods(ctx context.Context, list *corev1.PodList) error {
	return r.List(ctx, list)
}`;
    const body =
      'if err := r.pods(ctx, &corev1.PodList{}); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body, extra)), ['unscoped-list']);
  });
});
