// The WebApp controller of internal/controller/webapp_controller.go as a reconciler module for
// Reconcile Studio's embedded runtime. Same logic, same flaws on purpose: the status update after
// a quota refusal ignores its error, and the Deployment is updated from a locally built object.
import { isForbidden, isNotFound, type Reconciler } from 'reconcile-studio';

interface WebApp {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string; generation?: number };
  spec: { image: string; replicas?: number };
  status?: { phase?: string; readyReplicas?: number; observedGeneration?: number };
}

const reconciler: Reconciler = {
  for: { apiVersion: 'apps.example.com/v1', kind: 'WebApp' },
  owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],

  async reconcile(ctx, req) {
    // 1. Fetch the WebApp.
    let app: WebApp;
    try {
      app = (await ctx.client.get(
        { apiVersion: 'apps.example.com/v1', kind: 'WebApp' },
        req,
      )) as WebApp;
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }

    // 2. Fetch the Deployment it owns; create it when missing.
    let current: { status?: { readyReplicas?: number } };
    try {
      current = await ctx.client.get({ apiVersion: 'apps/v1', kind: 'Deployment' }, req);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await ctx.client.create(buildDesiredDeployment(app));
      return { requeueAfter: 5_000 };
    }

    // 3. Diff: desired replicas vs ready replicas.
    const desired = app.spec.replicas ?? 1;
    const ready = current.status?.readyReplicas ?? 0;

    if (desired !== ready) {
      // 4. Act (the quota is checked here).
      try {
        await ctx.client.update(buildDesiredDeployment(app));
      } catch (err) {
        if (isForbidden(err)) {
          // Quota conflict: record it in the status and retry later.
          app.status = { ...app.status, phase: 'QuotaExceeded' };
          ctx.client
            .status()
            .update(app)
            .catch(() => undefined);
          return { requeueAfter: 30_000 };
        }
        throw err;
      }
    }

    // 5. Report a healthy status.
    app.status = {
      phase: 'Running',
      readyReplicas: ready,
      observedGeneration: app.metadata.generation,
    };
    await ctx.client.status().update(app);
    return {};
  },
};

// Built from scratch, so it carries no resourceVersion.
function buildDesiredDeployment(app: WebApp) {
  const labels = { 'app.kubernetes.io/name': app.metadata.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: app.metadata.name,
      namespace: app.metadata.namespace,
      labels,
      ownerReferences: [
        {
          apiVersion: app.apiVersion,
          kind: app.kind,
          name: app.metadata.name,
          uid: app.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: app.spec.replicas ?? 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'web', image: app.spec.image }] },
      },
    },
  };
}

export default reconciler;
