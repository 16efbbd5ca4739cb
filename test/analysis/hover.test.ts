import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goHover, markerHelp } from '../../src/analysis/hover';
import { codeActions, toDiagnostic } from '../../src/analysis/lsp';
import { analyzer, controller } from './helpers';

describe('hover', () => {
  it('explains kubebuilder markers', () => {
    assert.match(
      markerHelp('// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get') ?? '',
      /ClusterRole/,
    );
    assert.match(markerHelp('// +kubebuilder:subresource:status') ?? '', /status/);
    assert.match(markerHelp('// +groupName=cache.example.com') ?? '', /API group/);
    assert.match(markerHelp('// +optional') ?? '', /optional/);
    assert.equal(markerHelp('// just a comment'), null);
  });

  it('explains a status write on a reconcile path', async () => {
    const a = await analyzer();
    const text = controller(
      'if err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}',
    );
    const file = a.parseGo('c.go', text);
    const h = goHover([file], file, text.indexOf('Update(ctx, &app)') + 1, []);
    assert.match(
      h?.markdown ?? '',
      /client\.Status\(\)\.Update\*\* in Reconcile[\s\S]*another reconcile/,
    );
  });

  it('explains a marker comment under the cursor', async () => {
    const a = await analyzer();
    const text = `package v1\n\n// +kubebuilder:object:root=true\ntype X struct{}\n`;
    const file = a.parseGo('t.go', text);
    const h = goHover([file], file, text.indexOf('object:root'), []);
    assert.match(h?.markdown ?? '', /DeepCopyObject/);
  });

  it('shows the rule page for a finding under the cursor', async () => {
    const a = await analyzer();
    const text = controller('_ = r.Status().Update(ctx, &app)');
    const file = a.parseGo('c.go', text);
    const findings = a.analyzeGo([file]);
    const h = goHover([file], file, text.indexOf('r.Status().Update'), findings);
    assert.match(h?.markdown ?? '', /status-error-ignored[\s\S]*## Why it hurts/);
  });
});

describe('LSP mapping', () => {
  it('maps a finding to a diagnostic with source, code, rule page and fixes', async () => {
    const a = await analyzer();
    const [f] = a.analyzeFile('c.go', controller('_ = r.Status().Update(ctx, &app)'));
    const d = toDiagnostic(f);
    assert.equal(d.source, 'reconcile-studio');
    assert.equal(d.code, 'status-error-ignored');
    assert.match(d.codeDescription?.href ?? '', /status-error-ignored\.md$/);
    const actions = codeActions('file:///c.go', [d], () => '\t_ = r.Status().Update(ctx, &app)');
    assert.deepEqual(
      actions.map((x) => x.title),
      ['Check the status write error and return it', 'Ignore status-error-ignored on this line'],
    );
    assert.equal(
      actions[1].edit?.changes?.['file:///c.go'][0].newText,
      '\t//reconcile-studio:ignore status-error-ignored <reason>\n',
    );
  });
});
