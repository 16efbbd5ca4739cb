/**
 * A Job's update validation (ValidateJobUpdate beside ValidateJob): the messages are a real
 * kube-apiserver 1.36.3's answers to the same writes in the differential suite
 * (batch/jobs/update-unconditional, error/422-job-selector-immutable).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatusError } from '../../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { newCluster } from '../helpers';

const JOB = { apiVersion: 'batch/v1', kind: 'Job' };
const key = { namespace: 'default', name: 'j' };

function created(suspend: boolean) {
  const { cluster } = newCluster({ controllers: false });
  cluster.create({
    ...JOB,
    metadata: { name: 'j', namespace: 'default' },
    spec: {
      suspend,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } },
    },
  } as KubeObject);
  return cluster;
}

test('a Job updated without its selector is refused: required, selecting nothing, and immutable', () => {
  const cluster = created(true);
  const job = cluster.get(JOB, key);
  delete (job.spec as Record<string, unknown>).selector;
  delete (job.spec as { template: { metadata?: unknown } }).template.metadata;
  assert.throws(
    () => cluster.update(job),
    (e: StatusError) => {
      assert.equal(e.code, 422);
      assert.equal(
        e.message,
        'Job.batch "j" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`, spec.selector: Invalid value: null: field is immutable]',
      );
      // ValidateJob and ValidateJobUpdate both run ValidateJobSpec: its causes come twice.
      assert.equal(e.status.details?.causes?.length, 5);
      return true;
    },
  );
  cluster.close();
});

test("a suspended Job's containers may change their resources, not their image", () => {
  const cluster = created(true);
  const job = cluster.get(JOB, key);
  const c = (job.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template
    .spec.containers[0];
  c.resources = { requests: { cpu: '1' } };
  const updated = cluster.update(job);
  (
    updated.spec as { template: { spec: { containers: Record<string, unknown>[] } } }
  ).template.spec.containers[0].image = 'j';
  assert.throws(
    () => cluster.update(updated),
    /spec\.template\.spec: Invalid value: .*: field is immutable/,
  );
  cluster.close();
});

test("a running Job's template is immutable", () => {
  const cluster = created(false);
  const job = cluster.get(JOB, key);
  (
    job.spec as { template: { metadata: { labels: Record<string, string> } } }
  ).template.metadata.labels.extra = 'x';
  assert.throws(() => cluster.update(job), /spec\.template: Invalid value: .*: field is immutable/);
  cluster.close();
});
