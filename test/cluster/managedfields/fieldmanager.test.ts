/**
 * What a write owns, as kube-apiserver's field manager records it: never the fields the write's
 * strategy resets (its GetResetFields, structuredmerge's IgnoreFilter), for updates and applies.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cluster } from '../../../src/cluster/cluster';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { csrRequest } from '../pkcs10';

const fieldsOf = (o: KubeObject) => o.metadata.managedFields?.map((e) => e.fieldsV1);

describe('field ownership and reset fields', () => {
  it("does not give a Pod's creator the status it sent (the pod strategy resets it)", () => {
    const cluster = new Cluster();
    const pod = cluster.create(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'default' },
        spec: { containers: [{ name: 'c', image: 'i' }] },
        status: { phase: 'Running' },
      } as KubeObject,
      { fieldManager: 'creator' },
    );
    const [fields] = fieldsOf(pod)!;
    assert.ok(fields?.['f:spec']);
    assert.equal(fields?.['f:status'], undefined);
  });

  it('records no manager for a CertificateSigningRequest, whose strategy resets all it has', () => {
    const cluster = new Cluster();
    const csr = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'c' },
      spec: { signerName: 'example.com/s', request: csrRequest(), usages: ['client auth'] },
    };
    assert.equal(
      cluster.create(csr, { fieldManager: 'creator' }).metadata.managedFields,
      undefined,
    );
    const applied = cluster.patch(
      { apiVersion: csr.apiVersion, kind: csr.kind },
      { name: 'applied' },
      { ...csr, metadata: { name: 'applied', labels: { a: 'b' } } },
      'apply',
      { fieldManager: 'applier' },
    );
    assert.deepEqual(fieldsOf(applied), [{ 'f:metadata': { 'f:labels': { 'f:a': {} } } }]);
  });
});
