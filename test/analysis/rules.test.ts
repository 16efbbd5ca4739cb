import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RULE_IDS } from '../../src/analysis/rules';
import { applyEdits, controller, findings, rulesOf } from './helpers';

const DEPLOY_BUILDER = `
func buildDeployment(app *webv1.WebApp) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
}`;

describe('the clean template', () => {
  it('yields no findings on its own', async () => {
    assert.deepEqual(await rulesOf(controller('')), []);
  });
});

describe('status-error-ignored', () => {
  it('flags `_ = r.Status().Update(ctx, &obj)`', async () => {
    assert.deepEqual(await rulesOf(controller('_ = r.Status().Update(ctx, &app)')), [
      'status-error-ignored',
    ]);
  });
  it('flags a bare status Patch statement', async () => {
    assert.deepEqual(
      await rulesOf(controller('r.Status().Patch(ctx, &app, client.MergeFrom(&app))')),
      ['status-error-ignored'],
    );
  });
  it('flags `err = r.Status().Update(...)` whose err is overwritten unread', async () => {
    const body =
      'err := r.Status().Update(ctx, &app)\nerr = r.Update(ctx, &app)\nif err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['status-error-ignored']);
  });
  it('accepts a status write checked in an if', async () => {
    const body =
      'if err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('accepts a status write assigned and then checked', async () => {
    const body =
      'err := r.Client.Status().Update(ctx, &app)\nif err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('accepts a status write returned directly from a helper', async () => {
    const body = 'if err := r.setPhase(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    const extra = `
func (r *WebAppReconciler) setPhase(ctx context.Context, app *webv1.WebApp) error {
	app.Status.Phase = "Ready"
	return r.Status().Update(ctx, app)
}`;
    assert.deepEqual(await rulesOf(controller(body, extra)), []);
  });
  it('fixes it by checking the error and returning it, gofmt-style', async () => {
    const text = controller('_ = r.Status().Update(ctx, &app)');
    const [f] = await findings(text);
    const fixed = applyEdits(text, f.fixes[0].edits);
    assert.match(
      fixed,
      /\n\tif err := r\.Status\(\)\.Update\(ctx, &app\); err != nil \{\n\t\treturn ctrl\.Result\{\}, err\n\t\}\n/,
    );
    assert.deepEqual(await rulesOf(fixed), []);
  });
  it('follows helpers called from Reconcile and flags inside them', async () => {
    const body = 'r.markReady(ctx, &app)';
    const extra = `
func (r *WebAppReconciler) markReady(ctx context.Context, app *webv1.WebApp) {
	app.Status.Phase = "Ready"
	_ = r.Status().Update(ctx, app)
}`;
    assert.deepEqual(await rulesOf(controller(body, extra)), ['status-error-ignored']);
  });
  it('ignores status writes in functions no Reconcile reaches', async () => {
    const extra = `
func (r *WebAppReconciler) unused(ctx context.Context, app *webv1.WebApp) {
	_ = r.Status().Update(ctx, app)
}`;
    assert.deepEqual(await rulesOf(controller('', extra)), []);
  });
});

describe('unscoped-list', () => {
  it('flags `r.List(ctx, &list)` with no options', async () => {
    assert.deepEqual(
      await rulesOf(
        controller(
          'var pods corev1.PodList\nif err := r.List(ctx, &pods); err != nil {\n\treturn ctrl.Result{}, err\n}',
        ),
      ),
      ['unscoped-list'],
    );
  });
  it('flags a List whose only option is a Limit', async () => {
    assert.deepEqual(
      await rulesOf(
        controller(
          'var pods corev1.PodList\nif err := r.List(ctx, &pods, client.Limit(10)); err != nil {\n\treturn ctrl.Result{}, err\n}',
        ),
      ),
      ['unscoped-list'],
    );
  });
  it('accepts a List scoped by namespace or labels', async () => {
    const body =
      'var pods corev1.PodList\nif err := r.List(ctx, &pods, client.InNamespace(app.Namespace), client.MatchingLabels{"app": app.Name}); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('accepts a List with spread options', async () => {
    const body =
      'var pods corev1.PodList\nopts := []client.ListOption{client.InNamespace(app.Namespace)}\nif err := r.List(ctx, &pods, opts...); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('ignores List on something that is not a client', async () => {
    assert.deepEqual(
      await rulesOf(controller('cache := map[string]int{}\n_ = cache\nitems.List(ctx, &app)')),
      [],
    );
  });
});

describe('repeated-status-update', () => {
  it('flags a second status write of the same object on one path', async () => {
    const body =
      'app.Status.Phase = "A"\nif err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}\napp.Status.Phase = "B"\nif err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    const text = controller(body);
    const fs = await findings(text);
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['repeated-status-update'],
    );
    const secondWrite = text.slice(0, text.lastIndexOf('r.Status().Update')).split('\n').length - 1;
    assert.equal(fs[0].range.start.line, secondWrite);
  });
  it('accepts a write in an early-return branch followed by the final write', async () => {
    const body =
      'if app.Spec.Replicas == 0 {\n\tapp.Status.Phase = "Idle"\n\tif err := r.Status().Update(ctx, &app); err != nil {\n\t\treturn ctrl.Result{}, err\n\t}\n\treturn ctrl.Result{}, nil\n}\nif err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('accepts writes in the two arms of an if/else', async () => {
    const body =
      'if app.Spec.Replicas == 0 {\n\terr := r.Status().Update(ctx, &app)\n\tif err != nil {\n\t\treturn ctrl.Result{}, err\n\t}\n} else {\n\tif err := r.Status().Update(ctx, &app); err != nil {\n\t\treturn ctrl.Result{}, err\n\t}\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('accepts one write in each case of a switch', async () => {
    const body =
      'switch app.Status.Phase {\ncase "A":\n\tif err := r.Status().Update(ctx, &app); err != nil {\n\t\treturn ctrl.Result{}, err\n\t}\ndefault:\n\tif err := r.Status().Update(ctx, &app); err != nil {\n\t\treturn ctrl.Result{}, err\n\t}\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('flags a write after a switch whose case already wrote', async () => {
    const body =
      'switch app.Status.Phase {\ncase "A":\n\tif err := r.Status().Update(ctx, &app); err != nil {\n\t\treturn ctrl.Result{}, err\n\t}\n}\nif err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['repeated-status-update']);
  });
  it('accepts two writes separated by a re-fetch of the object', async () => {
    const body =
      'if err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}\nif err := r.Get(ctx, req.NamespacedName, &app); err != nil {\n\treturn ctrl.Result{}, err\n}\nif err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('does not count a deferred write or one in a goroutine against the write on the path', async () => {
    const body =
      'defer r.Status().Update(ctx, &app)\ngo func() { _ = r.Status().Update(ctx, &app) }()\nif err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.ok(!(await rulesOf(controller(body))).includes('repeated-status-update'));
  });
  it('still flags two writes on the path beside a deferred one', async () => {
    const body =
      'defer r.Status().Update(ctx, &app)\nif err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}\nif err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    const found = await findings(controller(body));
    assert.equal(found.filter((f) => f.rule === 'repeated-status-update').length, 1);
  });
});

describe('result-with-error', () => {
  it('flags `return ctrl.Result{RequeueAfter: d}, err` inside `if err != nil`', async () => {
    const body =
      'if err := r.Update(ctx, &app); err != nil {\n\treturn ctrl.Result{RequeueAfter: time.Minute}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['result-with-error']);
  });
  it('flags a Requeue with fmt.Errorf', async () => {
    const body =
      'if app.Spec.Replicas < 0 {\n\treturn ctrl.Result{Requeue: true}, fmt.Errorf("bad replicas %d", app.Spec.Replicas)\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['result-with-error']);
  });
  it('flags a Requeue with errors.Wrap of an error known to be non-nil', async () => {
    const body =
      'if err := r.Update(ctx, &app); err != nil {\n\treturn ctrl.Result{Requeue: true}, errors.Wrap(err, "update")\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['result-with-error']);
  });
  it('accepts a Result with an error that may be nil', async () => {
    const body = 'err := r.Update(ctx, &app)\nreturn ctrl.Result{RequeueAfter: time.Minute}, err';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('accepts a zero Result with an error', async () => {
    const body = 'if err := r.Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('fixes it by dropping the Result', async () => {
    const text = controller(
      'if err := r.Update(ctx, &app); err != nil {\n\treturn ctrl.Result{RequeueAfter: time.Minute}, err\n}',
    );
    const [f] = await findings(text);
    assert.match(applyEdits(text, f.fixes[0].edits), /\treturn ctrl\.Result\{\}, err\n/);
  });
});

describe('notfound-not-ignored', () => {
  const head = (ret: string): string =>
    controller('').replace('return ctrl.Result{}, client.IgnoreNotFound(err)', ret);
  it('flags returning the Get error of the reconciled object as is', async () => {
    assert.deepEqual(await rulesOf(head('return ctrl.Result{}, err')), ['notfound-not-ignored']);
  });
  it('flags `err := r.Get(...)` followed by `if err != nil { return ..., err }`', async () => {
    const text = controller('').replace(
      'if err := r.Get(ctx, req.NamespacedName, &app); err != nil {\n\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)\n\t}',
      'err := r.Get(ctx, req.NamespacedName, &app)\n\tif err != nil {\n\t\treturn ctrl.Result{}, err\n\t}',
    );
    assert.deepEqual(await rulesOf(text), ['notfound-not-ignored']);
  });
  it('accepts client.IgnoreNotFound', async () => {
    assert.deepEqual(await rulesOf(controller('')), []);
  });
  it('accepts an explicit IsNotFound branch', async () => {
    const ret =
      'if apierrors.IsNotFound(err) {\n\t\t\treturn ctrl.Result{}, nil\n\t\t}\n\t\treturn ctrl.Result{}, err';
    assert.deepEqual(await rulesOf(head(ret)), []);
  });
  it('ignores Gets of other objects', async () => {
    const body =
      'var d appsv1.Deployment\nif err := r.Get(ctx, client.ObjectKey{Name: app.Name, Namespace: app.Namespace}, &d); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  // A read before the object's own, of another object keyed from the request (settings in its
  // namespace, a child named after it): its NotFound is a real failure, retried until it exists.
  for (const [what, key] of [
    ['only shares the request’s namespace', '{Namespace: req.Namespace, Name: "settings"}'],
    ['names an object after the request', '{Namespace: req.Namespace, Name: req.Name + "-cfg"}'],
  ]) {
    it(`ignores an earlier Get whose key ${what}`, async () => {
      const text = controller('').replace(
        '\tif err := r.Get(ctx, req.NamespacedName, &app)',
        `\tvar cm corev1.ConfigMap\n\tif err := r.Get(ctx, types.NamespacedName${key}, &cm); err != nil {\n\t\treturn ctrl.Result{}, err\n\t}\n\tif err := r.Get(ctx, req.NamespacedName, &app)`,
      );
      assert.deepEqual(await rulesOf(text), []);
    });
  }
  it('flags a Get with a key literal of the request, keyed or positional', async () => {
    for (const key of [
      'types.NamespacedName{Namespace: req.Namespace, Name: req.Name}',
      'types.NamespacedName{req.Namespace, req.Name}',
    ]) {
      const text = controller('').replace(
        'r.Get(ctx, req.NamespacedName, &app); err != nil {\n\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)',
        `r.Get(ctx, ${key}, &app); err != nil {\n\t\treturn ctrl.Result{}, err`,
      );
      assert.deepEqual(await rulesOf(text), ['notfound-not-ignored'], key);
    }
  });
  it('fixes it by wrapping with client.IgnoreNotFound', async () => {
    const text = head('return ctrl.Result{}, err');
    const [f] = await findings(text);
    const fixed = applyEdits(text, f.fixes[0].edits);
    assert.match(fixed, /return ctrl\.Result\{\}, client\.IgnoreNotFound\(err\)/);
    assert.deepEqual(await rulesOf(fixed), []);
  });
});

describe('update-unfetched', () => {
  it('flags Update of an object returned by a local builder', async () => {
    const body =
      'deploy := buildDeployment(&app)\nif err := r.Update(ctx, deploy); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body, DEPLOY_BUILDER)), ['update-unfetched']);
  });
  it('flags Update of a composite literal', async () => {
    const body =
      'cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}\nif err := r.Update(ctx, cm); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['update-unfetched']);
  });
  it('accepts Update of an object read with Get', async () => {
    const body =
      'var d appsv1.Deployment\nif err := r.Get(ctx, client.ObjectKeyFromObject(&app), &d); err != nil {\n\treturn ctrl.Result{}, err\n}\nif err := r.Update(ctx, &d); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('accepts Update after copying the live resourceVersion', async () => {
    const body =
      'deploy := buildDeployment(&app)\ndeploy.ResourceVersion = "42"\nif err := r.Update(ctx, deploy); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body, DEPLOY_BUILDER)), []);
  });
  it('accepts Update of an object from an unknown function', async () => {
    const body =
      'deploy := other.Build(&app)\nif err := r.Update(ctx, deploy); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
});

describe('blocking-sleep', () => {
  it('flags time.Sleep in Reconcile and offers RequeueAfter', async () => {
    const text = controller('time.Sleep(5 * time.Second)');
    const fs = await findings(text);
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['blocking-sleep'],
    );
    assert.equal(fs[0].fixes[0].title, 'Return RequeueAfter instead of sleeping');
    assert.match(
      applyEdits(text, fs[0].fixes[0].edits),
      /\treturn ctrl\.Result\{RequeueAfter: 5 \* time\.Second\}, nil\n/,
    );
  });
  it('flags `<-time.After(d)` in a helper on the path', async () => {
    const extra = `
func (r *WebAppReconciler) wait() {
	<-time.After(time.Second)
}`;
    assert.deepEqual(await rulesOf(controller('r.wait()', extra)), ['blocking-sleep']);
  });
  it('ignores a sleep inside a goroutine', async () => {
    assert.deepEqual(await rulesOf(controller('go func() {\n\ttime.Sleep(time.Second)\n}()')), []);
  });
  it('ignores a sleep outside any reconcile path', async () => {
    assert.deepEqual(
      await rulesOf(controller('', 'func main() {\n\ttime.Sleep(time.Second)\n}')),
      [],
    );
  });
});

describe('observed-generation', () => {
  const write =
    'app.Status.Phase = "Ready"\nif err := r.Status().Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
  it('flags a status write without ObservedGeneration when the type has it', async () => {
    const text = controller(write, '', { observedGeneration: false });
    const fs = await findings(text);
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['observed-generation'],
    );
    const fixed = applyEdits(text, fs[0].fixes[0].edits);
    assert.match(
      fixed,
      /\tapp\.Status\.ObservedGeneration = app\.Generation\n\tif err := r\.Status/,
    );
    assert.deepEqual(await rulesOf(fixed), []);
  });
  it('ignores a status Patch, which may leave ObservedGeneration to another writer', async () => {
    const patch =
      'orig := app.DeepCopy()\napp.Status.Phase = "Ready"\nif err := r.Status().Patch(ctx, &app, client.MergeFrom(orig)); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(patch, '', { observedGeneration: false })), []);
  });
  it('accepts a status write that sets it', async () => {
    assert.deepEqual(await rulesOf(controller(write)), []);
  });
  it('stays silent when the status type has no ObservedGeneration', async () => {
    const text = controller(write, '', { observedGeneration: false }).replace(
      '\tObservedGeneration int64\n',
      '',
    );
    assert.deepEqual(await rulesOf(text), []);
  });
});

describe('missing-owner-ref', () => {
  const create =
    'deploy := buildDeployment(&app)\nif err := r.Create(ctx, deploy); err != nil {\n\treturn ctrl.Result{}, err\n}';
  it('flags Create of a built child without SetControllerReference', async () => {
    const text = controller(create, DEPLOY_BUILDER);
    const fs = await findings(text);
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['missing-owner-ref'],
    );
    const fixed = applyEdits(text, fs[0].fixes[0].edits);
    assert.match(
      fixed,
      /\tif err := ctrl\.SetControllerReference\(&app, deploy, r\.Scheme\); err != nil \{\n\t\treturn ctrl\.Result\{\}, err\n\t\}\n\tif err := r\.Create/,
    );
    assert.deepEqual(await rulesOf(fixed), []);
  });
  it('accepts a builder that sets the controller reference', async () => {
    const extra = DEPLOY_BUILDER.replace('return &appsv1', 'd := &appsv1').replace(
      '}}\n}',
      '}}\n\t_ = ctrl.SetControllerReference(app, d, nil)\n\treturn d\n}',
    );
    assert.deepEqual(await rulesOf(controller(create, extra)), []);
  });
  it('ignores a child created in a fixed namespace (owner references cannot cross namespaces)', async () => {
    const body =
      'sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: metav1.NamespaceSystem}}\nif err := r.Create(ctx, sec); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('ignores a child handed to a mutate callback before Create', async () => {
    const body =
      'sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}\nif err := mutate(sec); err != nil {\n\treturn ctrl.Result{}, err\n}\nif err := r.Create(ctx, sec); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('ignores children created by a Namespace reconciler', async () => {
    const body =
      'cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns.Namespace}}\nif err := r.Create(ctx, cm); err != nil {\n\treturn ctrl.Result{}, err\n}';
    const text = controller(body)
      .replace('var app webv1.WebApp', 'var ns corev1.Namespace')
      .replace('&app); err', '&ns); err');
    assert.deepEqual(await rulesOf(text), []);
  });
  it('ignores cluster-scoped kinds such as Namespace', async () => {
    const body =
      'ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: app.Name}}\nif err := r.Create(ctx, ns); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
});

describe('forbidden-swallowed', () => {
  it('flags `if IsForbidden(err) { return ctrl.Result{}, nil }`', async () => {
    const body =
      'if err := r.Update(ctx, &app); err != nil {\n\tif apierrors.IsForbidden(err) {\n\t\treturn ctrl.Result{}, nil\n\t}\n\treturn ctrl.Result{}, err\n}';
    const text = controller(body);
    const fs = await findings(text);
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['forbidden-swallowed'],
    );
    assert.match(
      applyEdits(text, fs[0].fixes[0].edits),
      /return ctrl\.Result\{RequeueAfter: 30 \* time\.Second\}, nil/,
    );
  });
  it('accepts a Forbidden branch that requeues after a delay', async () => {
    const body =
      'if err := r.Update(ctx, &app); err != nil {\n\tif apierrors.IsForbidden(err) {\n\t\treturn ctrl.Result{RequeueAfter: 30 * time.Second}, nil\n\t}\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('accepts a Forbidden branch that returns the error', async () => {
    const body =
      'if err := r.Update(ctx, &app); err != nil {\n\tif apierrors.IsForbidden(err) {\n\t\treturn ctrl.Result{}, fmt.Errorf("quota: %w", err)\n\t}\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
});

describe('spec-write', () => {
  it('flags a spec change written back with Update', async () => {
    const body =
      'app.Spec.Replicas = 3\nif err := r.Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), ['spec-write']);
  });
  it('flags a spec change in a helper when Reconcile writes the object back', async () => {
    const extra = `
func defaults(app *webv1.WebApp) {
	app.Spec.Replicas++
}`;
    const body =
      'defaults(&app)\nif err := r.Update(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body, extra)), ['spec-write']);
  });
  it('accepts a spec change of a child object', async () => {
    const body =
      'var d appsv1.Deployment\nif err := r.Get(ctx, client.ObjectKeyFromObject(&app), &d); err != nil {\n\treturn ctrl.Result{}, err\n}\nd.Spec.Replicas = &app.Spec.Replicas\nif err := r.Update(ctx, &d); err != nil {\n\treturn ctrl.Result{}, err\n}';
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
  it('accepts a spec change that is never written back', async () => {
    assert.deepEqual(await rulesOf(controller('app.Spec.Replicas = 3')), []);
  });
});

describe('reconciler discovery', () => {
  it('finds Reconcile with reconcile.Request, a named client field and a value receiver', async () => {
    const text = `package x

import (
	"context"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

type R struct {
	kube client.Client
}

func (r R) Reconcile(ctx context.Context, request reconcile.Request) (reconcile.Result, error) {
	var obj Thing
	if err := r.kube.Get(ctx, request.NamespacedName, &obj); err != nil {
		return reconcile.Result{}, err
	}
	_ = r.kube.Status().Update(ctx, &obj)
	return reconcile.Result{}, nil
}
`;
    assert.deepEqual(await rulesOf(text), ['notfound-not-ignored', 'status-error-ignored']);
  });
  it('does not treat an unrelated struct field as a client', async () => {
    const text =
      controller('').replace(
        '\tScheme *runtime.Scheme\n',
        '\tScheme *runtime.Scheme\n\tstore  Store\n',
      ) +
      '\nfunc (r *WebAppReconciler) x(ctx context.Context) {\n\t_ = r.store.Status().Update(ctx, nil)\n}\n';
    assert.deepEqual(
      await rulesOf(
        text.replace(
          '\treturn ctrl.Result{}, nil\n}',
          '\tr.x(ctx)\n\treturn ctrl.Result{}, nil\n}',
        ),
      ),
      [],
    );
  });
  it('knows every rule id of the architecture', () => {
    assert.equal(RULE_IDS.length, 11);
  });
});

describe('quick-fix formatting', () => {
  it('keeps CRLF line endings in a file checked out with them', async () => {
    const text = controller('_ = r.Status().Update(ctx, &app)').replace(/\n/g, '\r\n');
    const [f] = await findings(text);
    assert.equal(f.rule, 'status-error-ignored');
    assert.match(f.fixes[0].edits[0].newText, /\{\r\n\t\treturn ctrl\.Result\{\}, err\r\n\t\}$/);
  });
});
