package controller

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "example.com/quota-operator/api/v1"
)

var _ = Describe("WebApp Controller", func() {
	Context("When reconciling a resource", func() {
		const resourceName = "test-resource"

		typeNamespacedName := types.NamespacedName{
			Name:      resourceName,
			Namespace: "default",
		}
		webapp := &webappv1.WebApp{}

		BeforeEach(func() {
			By("creating the custom resource for the Kind WebApp")
			err := k8sClient.Get(ctx, typeNamespacedName, webapp)
			if err != nil && errors.IsNotFound(err) {
				resource := &webappv1.WebApp{
					ObjectMeta: metav1.ObjectMeta{
						Name:      resourceName,
						Namespace: "default",
					},
					Spec: webappv1.WebAppSpec{Image: "nginx:1.27", Replicas: 2},
				}
				Expect(k8sClient.Create(ctx, resource)).To(Succeed())
			}
		})

		AfterEach(func() {
			resource := &webappv1.WebApp{}
			err := k8sClient.Get(ctx, typeNamespacedName, resource)
			Expect(err).NotTo(HaveOccurred())

			By("Cleanup the specific resource instance WebApp")
			Expect(k8sClient.Delete(ctx, resource)).To(Succeed())
			deploy := &appsv1.Deployment{}
			if err := k8sClient.Get(ctx, typeNamespacedName, deploy); err == nil {
				// The garbage collector may delete it first (it is owned by the WebApp).
				Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, deploy))).To(Succeed())
			}
		})

		It("should create a Deployment owned by the WebApp with the replicas of its spec", func() {
			controllerReconciler := &WebAppReconciler{
				Client: k8sClient,
				Scheme: k8sClient.Scheme(),
			}

			result, err := controllerReconciler.Reconcile(ctx, reconcile.Request{
				NamespacedName: typeNamespacedName,
			})
			Expect(err).NotTo(HaveOccurred())
			By("requeueing to look at the new Deployment again")
			Expect(result.RequeueAfter).To(Equal(5 * time.Second))

			app := &webappv1.WebApp{}
			Expect(k8sClient.Get(ctx, typeNamespacedName, app)).To(Succeed())
			deploy := &appsv1.Deployment{}
			Expect(k8sClient.Get(ctx, typeNamespacedName, deploy)).To(Succeed())

			Expect(deploy.Spec.Replicas).NotTo(BeNil())
			Expect(*deploy.Spec.Replicas).To(Equal(int32(2)))
			Expect(deploy.Spec.Template.Spec.Containers).To(HaveLen(1))
			Expect(deploy.Spec.Template.Spec.Containers[0].Image).To(Equal("nginx:1.27"))
			Expect(deploy.Spec.Selector.MatchLabels).To(HaveKeyWithValue("app.kubernetes.io/name", resourceName))

			owner := metav1.GetControllerOf(deploy)
			Expect(owner).NotTo(BeNil())
			Expect(owner.Kind).To(Equal("WebApp"))
			Expect(owner.APIVersion).To(Equal(webappv1.GroupVersion.String()))
			Expect(owner.Name).To(Equal(resourceName))
			Expect(owner.UID).To(Equal(app.UID))
			Expect(owner.BlockOwnerDeletion).To(HaveValue(BeTrue()))
		})

		It("should report the Deployment's ready replicas in the status", func() {
			controllerReconciler := &WebAppReconciler{
				Client: k8sClient,
				Scheme: k8sClient.Scheme(),
			}
			req := reconcile.Request{NamespacedName: typeNamespacedName}

			_, err := controllerReconciler.Reconcile(ctx, req)
			Expect(err).NotTo(HaveOccurred())

			Eventually(func(g Gomega) {
				result, err := controllerReconciler.Reconcile(ctx, req)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(result).To(Equal(reconcile.Result{}))

				app := &webappv1.WebApp{}
				g.Expect(k8sClient.Get(ctx, typeNamespacedName, app)).To(Succeed())
				deploy := &appsv1.Deployment{}
				g.Expect(k8sClient.Get(ctx, typeNamespacedName, deploy)).To(Succeed())

				g.Expect(app.Status.Phase).To(Equal("Running"))
				g.Expect(app.Status.ObservedGeneration).To(Equal(app.Generation))
				g.Expect(app.Status.ReadyReplicas).To(Equal(deploy.Status.ReadyReplicas))
				g.Expect(*deploy.Spec.Replicas).To(Equal(app.Spec.Replicas))
				By("keeping the controller reference through the Deployment's updates")
				g.Expect(metav1.IsControlledBy(deploy, app)).To(BeTrue())
			}, "20s", "250ms").Should(Succeed())
		})
	})

	Context("When the WebApp is gone", func() {
		It("should finish without an error and without a requeue", func() {
			controllerReconciler := &WebAppReconciler{
				Client: k8sClient,
				Scheme: k8sClient.Scheme(),
			}
			result, err := controllerReconciler.Reconcile(ctx, reconcile.Request{
				NamespacedName: types.NamespacedName{Name: "never-created", Namespace: "default"},
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(result).To(Equal(reconcile.Result{}))

			deploy := &appsv1.Deployment{}
			err = k8sClient.Get(ctx, types.NamespacedName{Name: "never-created", Namespace: "default"}, deploy)
			Expect(errors.IsNotFound(err)).To(BeTrue())
		})
	})
})
