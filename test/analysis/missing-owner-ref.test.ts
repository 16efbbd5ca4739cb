/** missing-owner-ref compares sibling children: one owned and one not is the clearest case. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controller, findings, rulesOf } from './helpers';

const create = (name: string): string =>
  `if err := r.Create(ctx, ${name}); err != nil {\n\treturn ctrl.Result{}, err\n}`;
const own = (name: string): string =>
  `if err := ctrl.SetControllerReference(&app, ${name}, r.Scheme); err != nil {\n\treturn ctrl.Result{}, err\n}`;
const children = `deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}`;

describe('missing-owner-ref among siblings', () => {
  it('flags the child created without the controller reference its sibling gets', async () => {
    const text = controller(`${children}\n${own('deploy')}\n${create('deploy')}\n${create('svc')}`);
    const fs = await findings(text);
    assert.deepEqual(
      fs.map((f) => f.rule),
      ['missing-owner-ref'],
    );
    assert.match(fs[0].message, /^svc \(Service\)/);
  });

  it('accepts siblings that both get the controller reference', async () => {
    const body = `${children}\n${own('deploy')}\n${create('deploy')}\n${own('svc')}\n${create('svc')}`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('accepts a child given owner references by assignment', async () => {
    const body = `${children}\n${own('deploy')}\n${create('deploy')}\nsvc.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(&app, webv1.GroupVersion.WithKind("WebApp"))}\n${create('svc')}`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });

  it('stays silent when the owner is set on an object it cannot name', async () => {
    const body = `${children}\nfor _, o := range []client.Object{deploy, svc} {\n\tif err := ctrl.SetControllerReference(&app, objs[o.GetName()], r.Scheme); err != nil {\n\t\treturn ctrl.Result{}, err\n\t}\n}\n${create('deploy')}\n${create('svc')}`;
    assert.deepEqual(await rulesOf(controller(body)), []);
  });
});

/** A reconciler of StatefulSets (not of the WebApp in helpers.controller) creating `child`. */
function statefulSetReconciler(child: string): string {
  return `package controller

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type SetReconciler struct {
	client.Client
}

func (r *SetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var set appsv1.StatefulSet
	if err := r.Get(ctx, req.NamespacedName, &set); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	obj := &${child}{ObjectMeta: metav1.ObjectMeta{Name: "data-" + set.Name + "-0", Namespace: set.Namespace}}
	if err := r.Create(ctx, obj); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}
`;
}

describe('missing-owner-ref and claims kept past their StatefulSet', () => {
  it('accepts a StatefulSet reconciler creating a PersistentVolumeClaim with no owner (Retain, as kube does)', async () => {
    assert.deepEqual(await rulesOf(statefulSetReconciler('corev1.PersistentVolumeClaim')), []);
  });

  it('still flags a Pod the StatefulSet reconciler creates with no owner', async () => {
    assert.deepEqual(await rulesOf(statefulSetReconciler('corev1.Pod')), ['missing-owner-ref']);
  });

  it('still flags a PersistentVolumeClaim created with no owner by a reconciler of another kind', async () => {
    const body = `pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}\n${create('pvc')}`;
    assert.deepEqual(await rulesOf(controller(body)), ['missing-owner-ref']);
  });
});
