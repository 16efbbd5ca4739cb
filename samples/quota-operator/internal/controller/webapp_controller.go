package controller

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "example.com/quota-operator/api/v1"
)

// WebAppReconciler reconciles a WebApp object. Its Reconcile is the one from the design notes
// this sample comes from, kept as it was on purpose: Reconcile Studio's diagnostics point at the
// ignored status-update error and at the Update of a Deployment that was built locally.
type WebAppReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=apps.example.com,resources=webapps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apps.example.com,resources=webapps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete

func (r *WebAppReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	// 1. Fetch the WebApp.
	var app webappv1.WebApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}

	// 2. Fetch the Deployment it owns.
	var currentDeploy appsv1.Deployment
	if err := r.Get(ctx, types.NamespacedName{Name: app.Name, Namespace: app.Namespace}, &currentDeploy); err != nil {
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		// The Deployment does not exist yet and must be created.
		deploy := buildDesiredDeployment(&app)
		if err := ctrl.SetControllerReference(&app, deploy, r.Scheme); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.Create(ctx, deploy); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{RequeueAfter: 5 * time.Second}, nil
	}

	// 3. Diff: desired replicas vs ready replicas.
	desiredReplicas := app.Spec.Replicas
	actualReplicas := currentDeploy.Status.ReadyReplicas

	if desiredReplicas != actualReplicas {
		// 4. Act (the quota is checked here). An Update replaces the whole object, owner
		// references included, so the desired Deployment carries its controller reference.
		deploy := buildDesiredDeployment(&app)
		if err := ctrl.SetControllerReference(&app, deploy, r.Scheme); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.Update(ctx, deploy); err != nil {
			if apierrors.IsForbidden(err) {
				// Quota conflict: record it in the status and retry later.
				app.Status.Phase = "QuotaExceeded"
				_ = r.Status().Update(ctx, &app)
				return reconcile.Result{RequeueAfter: 30 * time.Second}, nil
			}
			return reconcile.Result{}, err
		}
	}

	// 5. Report a healthy status.
	app.Status.Phase = "Running"
	app.Status.ReadyReplicas = actualReplicas
	app.Status.ObservedGeneration = app.Generation
	if err := r.Status().Update(ctx, &app); err != nil {
		return reconcile.Result{}, err
	}

	return reconcile.Result{}, nil
}

// buildDesiredDeployment returns the Deployment a WebApp should have. It is built from scratch,
// so it carries no resourceVersion.
func buildDesiredDeployment(app *webappv1.WebApp) *appsv1.Deployment {
	labels := map[string]string{"app.kubernetes.io/name": app.Name}
	replicas := app.Spec.Replicas
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "web", Image: app.Spec.Image}},
				},
			},
		},
	}
}

// SetupWithManager sets up the controller with the Manager.
func (r *WebAppReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&webappv1.WebApp{}).
		Owns(&appsv1.Deployment{}).
		Named("webapp").
		Complete(r)
}
