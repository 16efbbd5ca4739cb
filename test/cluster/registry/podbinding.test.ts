/**
 * pods/NAME/binding over HTTP, with the answers a kube-apiserver 1.36 gives (read off one): a
 * pending pod is bound in one write (node name, the Binding's labels and annotations, PodScheduled
 * true) and the answer is a bare Success Status; a second binding is a 409 on pods/binding; an
 * invalid target is the aggregate 500; a Binding named otherwise than the URL is a 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { POD } from '../helpers';
import { served } from '../http';
import type { Served } from '../http';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

const PODS = '/api/v1/namespaces/default/pods';
const binding = (name: string, target: Record<string, unknown>, metadata = {}) => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name, ...metadata },
  target,
});
const bind = (pod: string, body: unknown, query = '') =>
  s.call('POST', `${PODS}/${pod}/binding${query}`, body);

describe('pods/binding', () => {
  before(() => {
    for (const name of ['p1', 'p2', 'p3'])
      s.cluster.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default', labels: { run: name } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      });
  });

  it('binds a pending pod in one write and answers a bare Success', async () => {
    const before = s.cluster.list(POD, { namespace: 'default' }).metadata.resourceVersion;
    const res = await bind(
      'p1',
      binding(
        'p1',
        { kind: 'Node', name: 'n1' },
        { annotations: { a: 'b' }, labels: { 'topology.kubernetes.io/zone': 'z1' } },
      ),
    );
    assert.equal(res.status, 201);
    assert.deepEqual(JSON.parse(res.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      code: 201,
    });
    const pod = s.cluster.get(POD, { namespace: 'default', name: 'p1' });
    assert.equal((pod.spec as { nodeName?: string }).nodeName, 'n1');
    assert.deepEqual(pod.metadata.labels, { run: 'p1', 'topology.kubernetes.io/zone': 'z1' });
    assert.deepEqual(pod.metadata.annotations, { a: 'b' });
    const conditions = (pod.status as { conditions: Array<Record<string, unknown>> }).conditions;
    assert.deepEqual(
      conditions.filter((c) => c.type === 'PodScheduled').map((c) => c.status),
      ['True'],
    );
    assert.equal(Number(pod.metadata.resourceVersion), Number(before) + 1, 'one write');
  });

  it('refuses a pod already on a node with a 409 on pods/binding', async () => {
    const res = await bind('p1', binding('p1', { kind: 'Node', name: 'n2' }));
    assert.equal(res.status, 409);
    const st = JSON.parse(res.body);
    assert.equal(
      st.message,
      'Operation cannot be fulfilled on pods/binding "p1": pod p1 is already assigned to node "n1"',
    );
    assert.deepEqual(st.details, { name: 'p1', kind: 'pods/binding' });
  });

  it('answers an invalid target with the aggregate of its errors, as a 500', async () => {
    const res = await bind('p2', binding('p2', { kind: 'Pod' }));
    assert.equal(res.status, 500);
    const st = JSON.parse(res.body);
    assert.equal(
      st.message,
      '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]',
    );
    assert.equal(st.reason, undefined);
  });

  it('refuses a Binding named otherwise than the URL', async () => {
    const res = await bind('p2', binding('zz', { name: 'n' }));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).message, 'name in URL does not match name in Binding object');
  });

  it('binds nothing on a dry run, and checks the preconditions it is given', async () => {
    assert.equal((await bind('p3', binding('p3', { name: 'n' }), '?dryRun=All')).status, 201);
    const pod = s.cluster.get(POD, { namespace: 'default', name: 'p3' });
    assert.equal((pod.spec as { nodeName?: string }).nodeName, undefined);
    const stale = await bind('p3', binding('p3', { name: 'n' }, { resourceVersion: '1' }));
    assert.equal(stale.status, 409);
    assert.match(
      JSON.parse(stale.body).message,
      /Precondition failed: ResourceVersion in precondition: 1/,
    );
  });
});
