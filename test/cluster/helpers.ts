/** Shared fixtures for the fake cluster's tests. */
import assert from 'node:assert/strict';
import type { StatusError } from '../../src/cluster/apimachinery/errors';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import type { CreateClusterOptions } from '../../src/cluster/builtins';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import { VirtualClock, settle } from '../../src/util/clock';

export const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' };
export const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
export const NS = { apiVersion: 'v1', kind: 'Namespace' };
export const POD = { apiVersion: 'v1', kind: 'Pod' };
export const DEPLOY = { apiVersion: 'apps/v1', kind: 'Deployment' };
export const RS = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
export const QUOTA = { apiVersion: 'v1', kind: 'ResourceQuota' };
export const EVENT = { apiVersion: 'v1', kind: 'Event' };

export function widgetCrd(
  opts: { status?: boolean; scope?: 'Namespaced' | 'Cluster' } = {},
): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: opts.scope ?? 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(opts.status === false ? {} : { subresources: { status: {} } }),
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  properties: {
                    size: { type: 'integer', minimum: 0, maximum: 100 },
                    color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
                    name: { type: 'string', pattern: '^[a-z]+$', maxLength: 10 },
                    tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
                    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    note: { type: 'string', nullable: true },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    phase: { type: 'string' },
                    observedGeneration: { type: 'integer' },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

export function newCluster(opts: CreateClusterOptions = {}): {
  cluster: Cluster;
  clock: VirtualClock;
} {
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const cluster = createCluster({ clock, ...opts });
  return { cluster, clock };
}

/** A Deployment of `replicas` pods labelled app=NAME in default. */
export function deployment(name: string, replicas: number, image = 'nginx:1.27'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image }] },
      },
    },
  };
}

export function widget(name: string, size = 1, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'default' },
    spec: { size, ...extra },
  };
}

/** Lets microtask-driven controllers and watch deliveries run. */
export async function flush(clock?: VirtualClock): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await settle();
    if (clock) await clock.advance(0);
  }
}

/** Creates the ConfigMap default/big holding `kib` KiB; `update(i)` rewrites it (same size). */
export function bigConfigMap(
  cluster: Cluster,
  kib: number,
): { created: KubeObject; update(i: number): void } {
  const big = 'x'.repeat(kib * 1024);
  const created = cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'big' },
    data: { k: big },
  });
  return {
    created,
    update: (i) => {
      const cur = cluster.get(CM, { namespace: 'default', name: 'big' });
      cluster.update({ ...cur, data: { k: big, i: String(i) } });
    },
  };
}

/** Creates `obj` on a cluster of its own and expects kube-apiserver's 422 with `message`. */
export function expectInvalid(obj: KubeObject, message: string): void {
  const { cluster } = newCluster({ controllers: false });
  assert.throws(
    () => cluster.create(obj),
    (err: StatusError) => {
      assert.equal(err.message, message);
      return err.code === 422;
    },
  );
  cluster.close();
}
