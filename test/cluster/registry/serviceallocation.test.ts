/**
 * Services over HTTP as kube-apiserver's Service storage answers them: a PUT that leaves out the
 * allocated clusterIP (kubeclient's `update_service` of a hand-written object, a Python client's
 * `replace_namespaced_service`) keeps it, changing it is a 422, NodePort and LoadBalancer
 * Services get node ports from 30000–32767 (kept across updates), and a Service needs ports.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { served } from '../http';
import type { Served } from '../http';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

const SVCS = '/api/v1/namespaces/default/services';
interface Svc {
  metadata: { name: string; resourceVersion?: string };
  spec: {
    type?: string;
    clusterIP?: string;
    clusterIPs?: string[];
    ports?: Array<{ name?: string; port: number; nodePort?: number }>;
  };
}
const svc = (name: string, spec: Svc['spec']) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec,
});
async function create(body: unknown): Promise<Svc> {
  const r = await s.call('POST', SVCS, body);
  assert.equal(r.status, 201, r.body);
  return JSON.parse(r.body) as Svc;
}

describe('Service clusterIP', () => {
  it('a PUT without clusterIP keeps the allocated one', async () => {
    const made = await create(svc('keep', { ports: [{ port: 80 }] }));
    assert.ok(made.spec.clusterIP);
    const r = await s.call('PUT', `${SVCS}/keep`, svc('keep', { ports: [{ port: 81 }] }));
    assert.equal(r.status, 200, r.body);
    const put = JSON.parse(r.body) as Svc;
    assert.equal(put.spec.clusterIP, made.spec.clusterIP);
    assert.deepEqual(put.spec.clusterIPs, made.spec.clusterIPs);
  });

  it('changing the clusterIP is a 422: may not change once set', async () => {
    const made = await create(svc('fixed', { ports: [{ port: 80 }] }));
    const r = await s.call(
      'PUT',
      `${SVCS}/fixed`,
      svc('fixed', { clusterIP: '10.96.200.200', ports: [{ port: 80 }] }),
    );
    assert.equal(r.status, 422, r.body);
    const st = JSON.parse(r.body) as { message: string };
    assert.equal(
      st.message,
      'Service "fixed" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.200.200"}: may not change once set',
    );
    assert.ok(made.spec.clusterIP !== '10.96.200.200');
  });

  it('a Service without ports is a 422 (unless headless)', async () => {
    const r = await s.call('POST', SVCS, svc('noports', {}));
    assert.equal(r.status, 422, r.body);
    assert.match(r.body, /spec.ports: Required value/);
    await create(svc('headless', { clusterIP: 'None' }));
  });
});

describe('Service node ports', () => {
  it('NodePort and LoadBalancer Services get node ports in 30000–32767, each its own', async () => {
    const a = await create(
      svc('np', {
        type: 'NodePort',
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      }),
    );
    const b = await create(svc('lb', { type: 'LoadBalancer', ports: [{ port: 80 }] }));
    const got = [...a.spec.ports!, ...b.spec.ports!].map((p) => p.nodePort!);
    for (const p of got) assert.ok(p >= 30000 && p <= 32767, String(p));
    assert.equal(new Set(got).size, 3);
    const c = await create(svc('cip', { ports: [{ port: 80 }] }));
    assert.equal(c.spec.ports![0].nodePort, undefined);
  });

  it('an update that leaves out the node ports keeps them, by port name', async () => {
    const made = await create(
      svc('npkeep', { type: 'NodePort', ports: [{ name: 'http', port: 80 }] }),
    );
    const r = await s.call(
      'PUT',
      `${SVCS}/npkeep`,
      svc('npkeep', { type: 'NodePort', ports: [{ name: 'http', port: 8080 }] }),
    );
    assert.equal(r.status, 200, r.body);
    assert.equal((JSON.parse(r.body) as Svc).spec.ports![0].nodePort, made.spec.ports![0].nodePort);
  });

  it('a node port out of range is a 422', async () => {
    const r = await s.call(
      'POST',
      SVCS,
      svc('np80', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }),
    );
    assert.equal(r.status, 422, r.body);
    assert.match(
      r.body,
      /spec.ports\[0\].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767/,
    );
  });
});

describe('service ports', () => {
  it('a zero targetPort (what protobuf sends for an unset one) defaults to the port', async () => {
    for (const [name, targetPort] of [
      ['tp-zero', 0],
      ['tp-empty', ''],
    ] as const) {
      const r = await s.call('POST', SVCS, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name },
        spec: { ports: [{ port: 8080, targetPort }] },
      });
      assert.equal(r.status, 201, r.body);
      assert.equal(
        (JSON.parse(r.body) as { spec: { ports: Array<{ targetPort: unknown }> } }).spec.ports[0]
          .targetPort,
        8080,
      );
    }
  });

  it('a port or targetPort outside 1-65535 is a 422 worded as validateServicePort words it', async () => {
    const a = await s.call('POST', SVCS, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'bad-port' },
      spec: { ports: [{ port: 70000 }] },
    });
    assert.equal(a.status, 422);
    assert.equal(
      (JSON.parse(a.body) as { message: string }).message,
      'Service "bad-port" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]',
    );
  });
});

describe('IP families', () => {
  const families = async (name: string, spec: Record<string, unknown>) => {
    const r = await s.call('POST', SVCS, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec,
    });
    assert.equal(r.status, 201, r.body);
    const out = (JSON.parse(r.body) as { spec: Record<string, unknown> }).spec;
    return [out.ipFamilyPolicy, out.ipFamilies, out.clusterIPs];
  };

  it('a ClusterIP service is SingleStack IPv4, a headless one without selector RequireDualStack with both families, an ExternalName one neither', async () => {
    const ip = await families('fam-ip', { ports: [{ port: 80 }] });
    assert.deepEqual(ip.slice(0, 2), ['SingleStack', ['IPv4']]);
    assert.deepEqual(await families('fam-headless', { clusterIP: 'None', ports: [{ port: 80 }] }), [
      'RequireDualStack',
      ['IPv4', 'IPv6'],
      ['None'],
    ]);
    assert.deepEqual(
      await families('fam-headless-sel', {
        clusterIP: 'None',
        selector: { app: 'x' },
        ports: [{ port: 80 }],
      }),
      ['SingleStack', ['IPv4'], ['None']],
    );
    assert.deepEqual(
      await families('fam-ext', { type: 'ExternalName', externalName: 'example.com' }),
      [undefined, undefined, undefined],
    );
  });
});
