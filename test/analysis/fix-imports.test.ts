/**
 * Quick fixes bring the imports they need: a Reconcile in a file of its own (its reconciler struct
 * declared in another file) may not import the package a fix calls into.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeGoPackage } from '../../src/analysis/go/analyze';
import type { Finding } from '../../src/analysis/diagnostics';
import { analyzer, applyEdits } from './helpers';

const STRUCT = `package controller

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type WebAppReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}
`;

/** controller.go with `imports` in its import block and `body` after the Get. */
function reconcile(imports: string[], getError: string, body = ''): string {
  return `package controller

import (
${imports.map((i) => (i ? `\t${i}` : '')).join('\n')}
)

func (r *WebAppReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	app := &webv1.WebApp{}
	if err := r.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, ${getError}
	}
${body}	return ctrl.Result{}, nil
}
`;
}

async function analyze(controller: string): Promise<Finding[]> {
  const a = await analyzer();
  const files = [a.parseGo('controller.go', controller), a.parseGo('types.go', STRUCT)];
  try {
    return analyzeGoPackage(files, { reportFiles: new Set(['controller.go']) });
  } finally {
    for (const f of files) f.tree.delete();
  }
}

const BASE = [
  '"context"',
  '',
  'appsv1 "k8s.io/api/apps/v1"',
  'metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"',
  'ctrl "sigs.k8s.io/controller-runtime"',
  '',
  'webv1 "example.com/web/api/v1"',
];

describe('quick fixes add the imports they need', () => {
  it('IgnoreNotFound imports the client package, sorted into its group', async () => {
    const text = reconcile(BASE, 'err');
    const [f] = await analyze(text);
    assert.equal(f.rule, 'notfound-not-ignored');
    const fixed = applyEdits(text, f.fixes[0].edits);
    assert.match(
      fixed,
      /\tctrl "sigs\.k8s\.io\/controller-runtime"\n\t"sigs\.k8s\.io\/controller-runtime\/pkg\/client"\n\n\twebv1/,
    );
    assert.match(fixed, /return ctrl\.Result\{\}, client\.IgnoreNotFound\(err\)/);
    assert.deepEqual(await analyze(fixed), []);
  });

  it('IgnoreNotFound uses the existing import, adding none', async () => {
    const text = reconcile([...BASE, 'kclient "sigs.k8s.io/controller-runtime/pkg/client"'], 'err');
    const [f] = await analyze(text);
    assert.equal(f.fixes[0].edits.length, 1);
    assert.match(applyEdits(text, f.fixes[0].edits), /kclient\.IgnoreNotFound\(err\)/);
  });

  it('SetControllerReference imports controllerutil when neither ctrl nor it is imported', async () => {
    const imports = BASE.filter((i) => !i.startsWith('ctrl ')).concat([
      '"sigs.k8s.io/controller-runtime/pkg/reconcile"',
    ]);
    const create =
      '\td := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}\n\tif err := r.Create(ctx, d); err != nil {\n\t\treturn ctrl.Result{}, err\n\t}\n';
    const text = reconcile(imports, 'client.IgnoreNotFound(err)', create)
      .replace(/ctrl\.Request/, 'reconcile.Request')
      .replace(/ctrl\.Result/g, 'reconcile.Result')
      .replace('"context"\n', '"context"\n\t"sigs.k8s.io/controller-runtime/pkg/client"\n');
    const fs = await analyze(text);
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['missing-owner-ref'],
    );
    const fixed = applyEdits(text, fs[0].fixes[0].edits);
    assert.match(
      fixed,
      /\t"sigs\.k8s\.io\/controller-runtime\/pkg\/controller\/controllerutil"\n\t"sigs\.k8s\.io\/controller-runtime\/pkg\/reconcile"\n/,
    );
    assert.match(fixed, /controllerutil\.SetControllerReference\(app, d, r\.Scheme\)/);
    assert.deepEqual(await analyze(fixed), []);
  });
});
