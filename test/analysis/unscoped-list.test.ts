/** unscoped-list looks inside the options: an empty one narrows nothing. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controller, rulesOf } from './helpers';

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
