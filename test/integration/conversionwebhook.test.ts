/**
 * CRD conversion through a real HTTPS conversion webhook, over the served API: a Widget with two
 * versions, v1 (stored, `spec.host`) and v2 (`spec.hostname`), read, listed, watched, created,
 * updated and patched at both, and the webhook's failures answered as kube-apiserver 1.36 answers
 * them (messages and codes checked against it).
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import { startServer } from '../../src/cluster/endpoints/server';
import type { ServerHandle } from '../../src/cluster/endpoints/server';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import {
  converted,
  renameField,
  startConversionWebhook,
} from '../cluster/apiextensions/conversionwebhookserver';
import type { ConversionWebhookServer } from '../cluster/apiextensions/conversionwebhookserver';
import { ok } from './serve';

interface Answer {
  code: number;
  body: Record<string, unknown>;
}

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
const V1 = '/apis/stable.example.com/v1/namespaces/default/widgets';
const V2 = '/apis/stable.example.com/v2/namespaces/default/widgets';

function schema(field: string) {
  return {
    openAPIV3Schema: {
      type: 'object',
      properties: { spec: { type: 'object', properties: { [field]: { type: 'string' } } } },
    },
  };
}

describe('CRD conversion webhooks over the served API', () => {
  let cluster: Cluster;
  let server: ServerHandle;
  let hook: ConversionWebhookServer;
  let svcHook: ConversionWebhookServer;

  before(async () => {
    hook = await startConversionWebhook();
    svcHook = await startConversionWebhook(['convert.system.svc']);
    cluster = createCluster({
      controllers: false,
      webhookServices: new Map([['system/convert', `127.0.0.1:${svcHook.port}`]]),
    });
    server = await startServer({ cluster });
  });
  after(async () => {
    await server.close();
    cluster.close();
    await hook.close();
    await svcHook.close();
  });

  function installCrd(conversion: Record<string, unknown>): void {
    const crd = {
      ...CRD,
      metadata: { name: 'widgets.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        conversion,
        versions: [
          { name: 'v1', served: true, storage: true, schema: schema('host') },
          { name: 'v2', served: true, storage: false, schema: schema('hostname') },
        ],
      },
    } as unknown as KubeObject;
    const old = cluster.peek(CRD, { name: 'widgets.stable.example.com' });
    if (old)
      cluster.update({
        ...crd,
        metadata: { ...crd.metadata, resourceVersion: old.metadata.resourceVersion },
      });
    else cluster.create(crd);
  }

  const byUrl = (path = '/convert') => ({
    strategy: 'Webhook',
    webhook: {
      conversionReviewVersions: ['v1'],
      clientConfig: { url: `${hook.url}${path}`, caBundle: hook.caBundle },
    },
  });

  beforeEach(() => {
    installCrd(byUrl());
    const t = { apiVersion: 'stable.example.com/v1', kind: 'Widget' };
    for (const w of [...cluster.scan(t, 'default')])
      cluster.delete(t, { namespace: 'default', name: w.metadata.name! });
    hook.received.length = 0;
    svcHook.received.length = 0;
  });

  function call(
    method: string,
    path: string,
    body?: unknown,
    ct = 'application/json',
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const r = request(
        `${server.url}${path}`,
        {
          method,
          ca: server.caPem,
          headers: {
            authorization: `Bearer ${server.token}`,
            ...(body ? { 'content-type': ct } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () =>
            resolve({
              code: res.statusCode ?? 0,
              body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
            }),
          );
        },
      );
      r.on('error', reject);
      r.end(body ? JSON.stringify(body) : undefined);
    });
  }

  /** The events of a watch until `count` have arrived or the stream ends. */
  function watch(
    path: string,
    count: number,
  ): Promise<Array<{ type: string; object: KubeObject }>> {
    return new Promise((resolve, reject) => {
      const events: Array<{ type: string; object: KubeObject }> = [];
      const r = request(
        `${server.url}${path}`,
        { ca: server.caPem, headers: { authorization: `Bearer ${server.token}` } },
        (res) => {
          let buf = '';
          res.on('data', (d: Buffer) => {
            buf += d.toString();
            let i: number;
            while ((i = buf.indexOf('\n')) >= 0) {
              events.push(JSON.parse(buf.slice(0, i)) as { type: string; object: KubeObject });
              buf = buf.slice(i + 1);
              if (events.length === count) {
                r.destroy();
                resolve(events);
              }
            }
          });
          res.on('end', () => resolve(events));
        },
      );
      r.on('error', (e) => (events.length >= count ? undefined : reject(e)));
      r.end();
    });
  }

  const widget = (name: string, version: 'v1' | 'v2', value: string) => ({
    apiVersion: `stable.example.com/${version}`,
    kind: 'Widget',
    metadata: { name },
    spec: version === 'v1' ? { host: value } : { hostname: value },
  });

  const stored = (name: string) =>
    cluster.peek(
      { apiVersion: 'stable.example.com/v1', kind: 'Widget' },
      { namespace: 'default', name },
    );

  it('serves an object stored at v1 at v2 through the webhook, sending the ConversionReview v1', async () => {
    assert.equal((await call('POST', V1, widget('w1', 'v1', 'a.example'))).code, 201);
    assert.equal(hook.received.length, 0, 'a write at the storage version converts nothing');
    const got = await call('GET', `${V2}/w1`);
    assert.equal(got.code, 200);
    assert.equal(got.body.apiVersion, 'stable.example.com/v2');
    assert.deepEqual(got.body.spec, { hostname: 'a.example' });
    assert.equal(hook.received.length, 1);
    const r = hook.received[0].request;
    assert.equal(r.desiredAPIVersion, 'stable.example.com/v2');
    assert.match(r.uid, /^[0-9a-f-]{36}$/);
    assert.equal(r.objects.length, 1);
    assert.equal(r.objects[0].apiVersion, 'stable.example.com/v1');
    assert.deepEqual(r.objects[0].spec, { host: 'a.example' });
    // As the storage decodes it: the revision is set after conversion, never sent.
    assert.equal((r.objects[0].metadata as KubeObject['metadata']).resourceVersion, undefined);
    assert.ok((r.objects[0].metadata as KubeObject['metadata']).uid);
    assert.equal(
      (got.body.metadata as { resourceVersion: string }).resourceVersion,
      stored('w1')!.metadata.resourceVersion,
    );
    // The request's audit record lists the call, as the debugger's API-call table shows it.
    const audited = server.audit
      .events()
      .filter((e) => e.stage === 'ResponseComplete' && e.webhookCalls?.length)
      .at(-1);
    assert.deepEqual(
      audited?.webhookCalls?.map((c) => [c.kind, c.webhook, c.ok]),
      [['conversion', 'widgets.stable.example.com', true]],
    );
    // The storage version is served as stored: no call.
    const v1 = await call('GET', `${V1}/w1`);
    assert.deepEqual(v1.body.spec, { host: 'a.example' });
    assert.equal(hook.received.length, 1);
  });

  it('stores a create at v2 at the storage version and answers it at v2', async () => {
    const res = await call('POST', V2, widget('w2', 'v2', 'b.example'));
    assert.equal(res.code, 201);
    assert.equal(res.body.apiVersion, 'stable.example.com/v2');
    assert.deepEqual(res.body.spec, { hostname: 'b.example' });
    const s = stored('w2')!;
    assert.equal(s.apiVersion, 'stable.example.com/v1');
    assert.deepEqual(s.spec, { host: 'b.example' });
    assert.equal((res.body.metadata as { uid: string }).uid, s.metadata.uid);
    assert.equal(
      (res.body.metadata as { resourceVersion: string }).resourceVersion,
      s.metadata.resourceVersion,
    );
    // In: v2 → v1 before storing (no resourceVersion yet); out: v1 → v2.
    assert.deepEqual(
      hook.received.map((x) => [x.request.objects[0].apiVersion, x.request.desiredAPIVersion]),
      [
        ['stable.example.com/v2', 'stable.example.com/v1'],
        ['stable.example.com/v1', 'stable.example.com/v2'],
      ],
    );
    assert.equal(
      (hook.received[0].request.objects[0].metadata as KubeObject['metadata']).resourceVersion,
      undefined,
    );
  });

  it('sends a mutating webhook registered for v1 a v2 create converted to v1, and converts its patch back', async () => {
    // matchPolicy Equivalent (the default): kube-apiserver converts the object to the webhook's
    // version through the conversion webhook, and the patched object back (kubebuilder's
    // multiversion tutorial has a defaulting webhook per version).
    hook.handle('/admit', (r) => {
      const req = r as unknown as { uid: string; object: KubeObject };
      admitted.push(req.object);
      const patch = [{ op: 'replace', path: '/spec/host', value: 'defaulted.example' }];
      return {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: {
          uid: req.uid,
          allowed: true,
          patchType: 'JSONPatch',
          patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
        },
      };
    });
    const admitted: KubeObject[] = [];
    const mwc = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'widget-defaults' },
      webhooks: [
        {
          name: 'default.widgets.stable.example.com',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          clientConfig: { url: `${hook.url}/admit`, caBundle: hook.caBundle },
          rules: [
            {
              apiGroups: ['stable.example.com'],
              apiVersions: ['v1'],
              operations: ['CREATE'],
              resources: ['widgets'],
            },
          ],
        },
      ],
    } as unknown as KubeObject;
    cluster.create(mwc);
    try {
      const res = await call('POST', V2, widget('w-eq', 'v2', 'given.example'));
      assert.equal(res.code, 201);
      assert.equal(admitted.length, 1);
      assert.equal(admitted[0].apiVersion, 'stable.example.com/v1');
      assert.deepEqual(admitted[0].spec, { host: 'given.example' });
      assert.equal(res.body.apiVersion, 'stable.example.com/v2');
      assert.deepEqual(res.body.spec, { hostname: 'defaulted.example' });
      assert.deepEqual(stored('w-eq')!.spec, { host: 'defaulted.example' });
    } finally {
      cluster.delete(mwc, { name: 'widget-defaults' });
    }
  });

  it('lists at either version, converting each object stored at the other', async () => {
    await call('POST', V1, widget('a', 'v1', 'a.example'));
    await call('POST', V1, widget('b', 'v1', 'b.example'));
    hook.received.length = 0;
    const l2 = await call('GET', V2);
    assert.equal(l2.code, 200);
    assert.equal(l2.body.apiVersion, 'stable.example.com/v2');
    const items = l2.body.items as KubeObject[];
    assert.deepEqual(
      items.map((o) => [o.apiVersion, o.metadata.name, o.spec]),
      [
        ['stable.example.com/v2', 'a', { hostname: 'a.example' }],
        ['stable.example.com/v2', 'b', { hostname: 'b.example' }],
      ],
    );
    // One call per object, as the watch cache converts each item.
    assert.equal(hook.received.length, 2);
    assert.ok(hook.received.every((x) => x.request.objects.length === 1));
    hook.received.length = 0;
    const l1 = await call('GET', V1);
    assert.deepEqual(
      (l1.body.items as KubeObject[]).map((o) => o.spec),
      [{ host: 'a.example' }, { host: 'b.example' }],
    );
    assert.equal(hook.received.length, 0);
  });

  it('updates and patches at v2: the old object is converted, the new one stored at v1', async () => {
    await call('POST', V1, widget('w', 'v1', 'a.example'));
    const cur = (await call('GET', `${V2}/w`)).body as unknown as KubeObject;
    (cur.spec as Record<string, string>).hostname = 'b.example';
    const put = await call('PUT', `${V2}/w`, cur);
    assert.equal(put.code, 200);
    assert.deepEqual(put.body.spec, { hostname: 'b.example' });
    assert.equal((put.body.metadata as { generation: number }).generation, 2);
    assert.deepEqual(stored('w')!.spec, { host: 'b.example' });
    assert.equal(stored('w')!.apiVersion, 'stable.example.com/v1');
    const patched = await call(
      'PATCH',
      `${V2}/w`,
      { spec: { hostname: 'c.example' } },
      'application/merge-patch+json',
    );
    assert.equal(patched.code, 200);
    assert.deepEqual(patched.body.spec, { hostname: 'c.example' });
    assert.deepEqual(stored('w')!.spec, { host: 'c.example' });
    // An update that changes nothing at the storage version writes nothing.
    const rv = stored('w')!.metadata.resourceVersion;
    const same = await call(
      'PATCH',
      `${V2}/w`,
      { spec: { hostname: 'c.example' } },
      'application/merge-patch+json',
    );
    assert.equal(same.code, 200);
    assert.equal(stored('w')!.metadata.resourceVersion, rv);
    // And at v1, straight through.
    const p1 = await call(
      'PATCH',
      `${V1}/w`,
      { spec: { host: 'd.example' } },
      'application/merge-patch+json',
    );
    assert.deepEqual(p1.body.spec, { host: 'd.example' });
  });

  it('deletes at v2: a Status when gone, the object at v2 while a finalizer holds it', async () => {
    await call('POST', V1, widget('w', 'v1', 'a.example'));
    const gone = await call('DELETE', `${V2}/w`);
    assert.equal(gone.code, 200);
    assert.equal(gone.body.kind, 'Status');
    assert.equal(stored('w'), undefined);
    await call('POST', V1, {
      ...widget('h', 'v1', 'a.example'),
      metadata: { name: 'h', finalizers: ['example.com/hold'] },
    });
    const held = await call('DELETE', `${V2}/h`);
    assert.equal(held.code, 200);
    assert.equal(held.body.apiVersion, 'stable.example.com/v2');
    assert.deepEqual(held.body.spec, { hostname: 'a.example' });
    assert.ok((held.body.metadata as KubeObject['metadata']).deletionTimestamp);
    const released = await call(
      'PATCH',
      `${V2}/h`,
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    assert.equal(released.code, 200);
    assert.deepEqual(released.body.spec, { hostname: 'a.example' });
    assert.equal(stored('h'), undefined);
  });

  it('converts every event of a watch at v2, in order', async () => {
    await call('POST', V1, widget('w0', 'v1', 'zero'));
    const events = watch(`${V2}?watch=1`, 3);
    // The initial ADDED is sent before the writes below are made.
    await new Promise((r) => setTimeout(r, 50));
    await call('POST', V1, widget('w1', 'v1', 'one'));
    await call('PATCH', `${V1}/w1`, { spec: { host: 'two' } }, 'application/merge-patch+json');
    const got = await events;
    assert.deepEqual(
      got.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec]),
      [
        ['ADDED', 'stable.example.com/v2', 'w0', { hostname: 'zero' }],
        ['ADDED', 'stable.example.com/v2', 'w1', { hostname: 'one' }],
        ['MODIFIED', 'stable.example.com/v2', 'w1', { hostname: 'two' }],
      ],
    );
  });

  it('keeps the labels and annotations a webhook sets and puts back any other metadata', async () => {
    hook.handle('/relabel', (r) =>
      converted(
        r,
        r.objects.map((o) => {
          const c = renameField(o, r.desiredAPIVersion) as KubeObject;
          c.metadata.labels = { converted: 'yes' };
          c.metadata.generation = 99;
          c.metadata.finalizers = ['x/y'];
          return c;
        }),
      ),
    );
    installCrd(byUrl('/relabel'));
    await call('POST', V1, widget('w', 'v1', 'a.example'));
    const got = await call('GET', `${V2}/w`);
    const md = got.body.metadata as KubeObject['metadata'];
    assert.deepEqual(md.labels, { converted: 'yes' });
    assert.equal(md.generation, 1);
    assert.equal(md.finalizers, undefined);
  });

  it('answers a failed conversion with the apiserver 500 and its message', async () => {
    await call('POST', V1, widget('w', 'v1', 'a.example'));
    const cases: Array<
      [
        string,
        (r: Parameters<Parameters<ConversionWebhookServer['handle']>[1]>[0]) => unknown,
        string,
      ]
    > = [
      [
        '/fail',
        (r) => ({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          response: { uid: r.uid, result: { status: 'Failure', message: 'host is required' } },
        }),
        'conversion webhook for stable.example.com/v1, Kind=Widget failed: host is required',
      ],
      [
        '/failnomsg',
        (r) => ({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          response: { uid: r.uid, result: { status: 'Failure' } },
        }),
        "conversion webhook for stable.example.com/v1, Kind=Widget failed: response.result.status was 'Failure', not 'Success'",
      ],
      [
        '/noresponse',
        () => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }),
        'conversion webhook for stable.example.com/v1, Kind=Widget failed: no response provided',
      ],
      [
        '/v1beta1answer',
        (r) => ({ ...converted(r, []), apiVersion: 'apiextensions.k8s.io/v1beta1' }),
        'conversion webhook for stable.example.com/v1, Kind=Widget failed: converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion',
      ],
      [
        '/notreview',
        (r) => ({ ...converted(r, []), kind: 'Other' }),
        'conversion webhook for stable.example.com/v1, Kind=Widget failed: no kind "Other" is registered for version "apiextensions.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"',
      ],
      [
        '/count',
        (r) => converted(r, []),
        'conversion webhook for stable.example.com/v1, Kind=Widget returned 0 objects, expected 1',
      ],
      [
        '/version',
        (r) => converted(r, r.objects),
        'conversion webhook for stable.example.com/v1, Kind=Widget returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)',
      ],
      [
        '/kind',
        (r) =>
          converted(
            r,
            r.objects.map((o) => ({ ...renameField(o, r.desiredAPIVersion), kind: 'Other' })),
          ),
        'conversion webhook for stable.example.com/v1, Kind=Widget returned invalid object at index 0: invalid kind (expected Widget, received Other)',
      ],
      [
        '/name',
        (r) =>
          converted(
            r,
            r.objects.map((o) => {
              const c = renameField(o, r.desiredAPIVersion) as KubeObject;
              c.metadata.name = 'other';
              return c;
            }),
          ),
        'conversion webhook for stable.example.com/v1, Kind=Widget returned invalid object: must have the same name: w != other',
      ],
      [
        '/labelnum',
        (r) =>
          converted(
            r,
            r.objects.map((o) => {
              const c = renameField(o, r.desiredAPIVersion) as KubeObject;
              (c.metadata as Record<string, unknown>).labels = { n: 1 };
              return c;
            }),
          ),
        'conversion webhook for stable.example.com/v1, Kind=Widget returned invalid metadata: metadata.labels[n] must be a string, but is int64 in converted object',
      ],
      [
        '/label',
        (r) =>
          converted(
            r,
            r.objects.map((o) => {
              const c = renameField(o, r.desiredAPIVersion) as KubeObject;
              c.metadata.labels = { 'bad key!': 'v' };
              return c;
            }),
          ),
        `conversion webhook for stable.example.com/v1, Kind=Widget returned invalid metadata: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ];
    for (const [path, handler, message] of cases) {
      hook.handle(path, handler);
      installCrd(byUrl(path));
      for (const [what, answer] of [
        ['get', await call('GET', `${V2}/w`)],
        ['list', await call('GET', V2)],
      ] as const) {
        assert.equal(answer.code, 500, `${path} ${what}`);
        assert.equal(answer.body.message, message, `${path} ${what}`);
        assert.equal(answer.body.reason, undefined, `${path} ${what}`);
      }
    }
    // The uid the review was sent with must come back.
    hook.handle('/baduid', (r) => ({ ...converted(r, []), response: { uid: 'nope' } }));
    installCrd(byUrl('/baduid'));
    const bad = await call('GET', `${V2}/w`);
    assert.equal(bad.code, 500);
    assert.match(
      String(bad.body.message),
      /^conversion webhook for stable\.example\.com\/v1, Kind=Widget failed: expected response\.uid="[0-9a-f-]{36}", got "nope"$/,
    );
  });

  it('refuses a write at v2 the webhook cannot convert, storing nothing', async () => {
    hook.handle('/fail', (r) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: { uid: r.uid, result: { status: 'Failure', message: 'host is required' } },
    }));
    installCrd(byUrl('/fail'));
    const res = await call('POST', V2, widget('w', 'v2', 'a.example'));
    assert.equal(res.code, 500);
    assert.equal(
      res.body.message,
      'conversion webhook for stable.example.com/v2, Kind=Widget failed: host is required',
    );
    assert.equal(stored('w'), undefined);
    // At the storage version nothing is converted: the write goes through.
    assert.equal((await call('POST', V1, widget('w', 'v1', 'a.example'))).code, 201);
    const put = await call('PUT', `${V2}/w`, {
      ...widget('w', 'v2', 'b.example'),
      metadata: { name: 'w', resourceVersion: stored('w')!.metadata.resourceVersion },
    });
    assert.equal(put.code, 500);
    assert.equal(
      put.body.message,
      'conversion webhook for stable.example.com/v1, Kind=Widget failed: host is required',
    );
    assert.deepEqual(stored('w')!.spec, { host: 'a.example' });
  });

  it('names an unreachable webhook as the apiserver does (Go wording, ?timeout=30s)', async () => {
    installCrd({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { url: 'https://127.0.0.1:1/x', caBundle: hook.caBundle },
      },
    });
    await call('POST', V1, widget('w', 'v1', 'a.example'));
    const res = await call('GET', `${V2}/w`);
    assert.equal(res.code, 500);
    assert.equal(
      res.body.message,
      'conversion webhook for stable.example.com/v1, Kind=Widget failed: Post "https://127.0.0.1:1/x?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused',
    );
  });

  it('ends a watch at v2 with an ERROR event when an event cannot be converted', async () => {
    hook.handle('/selective', (r) =>
      r.objects.some((o) => (o.spec as { host?: string }).host === 'fail')
        ? {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'ConversionReview',
            response: { uid: r.uid, result: { status: 'Failure', message: 'refusing fail' } },
          }
        : converted(
            r,
            r.objects.map((o) => renameField(o, r.desiredAPIVersion)),
          ),
    );
    installCrd(byUrl('/selective'));
    const rv = cluster.store.resourceVersion;
    const events = watch(`${V2}?watch=1&resourceVersion=${rv}`, 3);
    await new Promise((r) => setTimeout(r, 50));
    await call('POST', V1, widget('g1', 'v1', 'good'));
    await call('POST', V1, widget('f1', 'v1', 'fail'));
    await call('POST', V1, widget('g2', 'v1', 'good'));
    const got = await events;
    assert.equal(got.length, 2, 'the stream ends at the event it cannot convert');
    assert.deepEqual([got[0].type, got[0].object.metadata.name], ['ADDED', 'g1']);
    assert.equal(got[1].type, 'ERROR');
    assert.equal((got[1].object as unknown as { code: number }).code, 500);
    assert.equal(
      (got[1].object as unknown as { message: string }).message,
      'conversion webhook for stable.example.com/v1, Kind=Widget failed: refusing fail',
    );
  });

  it('resolves a service clientConfig through --webhook-service, TLS name the Service DNS name', async () => {
    installCrd({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: {
          service: { namespace: 'system', name: 'convert', path: '/convert', port: 443 },
          caBundle: svcHook.caBundle,
        },
      },
    });
    await call('POST', V1, widget('w', 'v1', 'a.example'));
    const got = await call('GET', `${V2}/w`);
    assert.equal(got.code, 200);
    assert.deepEqual(got.body.spec, { hostname: 'a.example' });
    assert.equal(svcHook.received.length, 1);
    assert.equal(svcHook.received[0].path, '/convert');
  });

  it('kubectl applies at v2 and gets at both versions, the table included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-conv-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeconfig());
    try {
      const manifest = JSON.stringify({
        ...widget('k', 'v2', 'k.example'),
        metadata: { name: 'k', namespace: 'default' },
      });
      await ok(kubeconfig, ['apply', '-f', '-'], manifest);
      assert.deepEqual(stored('k')!.spec, { host: 'k.example' });
      assert.equal(
        await ok(kubeconfig, [
          'get',
          'widgets.v2.stable.example.com',
          'k',
          '-o',
          'jsonpath={.spec.hostname}',
        ]),
        'k.example',
      );
      assert.equal(
        await ok(kubeconfig, [
          'get',
          'widgets.v1.stable.example.com',
          'k',
          '-o',
          'jsonpath={.spec.host}',
        ]),
        'k.example',
      );
      assert.match(await ok(kubeconfig, ['get', 'widgets.v2.stable.example.com']), /^k\s/m);
      // A second apply at v2 reads the object at v2 and patches it there.
      await ok(kubeconfig, ['apply', '-f', '-'], manifest.replace('k.example', 'l.example'));
      assert.deepEqual(stored('k')!.spec, { host: 'l.example' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('after the storage version moves to v2, objects stay where they were stored and are converted from there', async () => {
    await call('POST', V1, widget('old', 'v1', 'old.example'));
    const crd = cluster.get(CRD, { name: 'widgets.stable.example.com' });
    const versions = (crd.spec as { versions: Array<{ storage: boolean }> }).versions;
    versions[0].storage = false;
    versions[1].storage = true;
    const moved = cluster.update(crd);
    assert.deepEqual((moved.status as { storedVersions: string[] }).storedVersions, ['v1', 'v2']);
    hook.received.length = 0;
    assert.equal((await call('POST', V2, widget('new', 'v2', 'new.example'))).code, 201);
    assert.equal(hook.received.length, 0, 'written at the storage version');
    const t2 = { apiVersion: 'stable.example.com/v2', kind: 'Widget' };
    assert.equal(
      cluster.peek(t2, { namespace: 'default', name: 'new' })!.apiVersion,
      'stable.example.com/v2',
    );
    assert.equal(
      cluster.peek(t2, { namespace: 'default', name: 'old' })!.apiVersion,
      'stable.example.com/v1',
    );
    const l2 = await call('GET', V2);
    assert.deepEqual(
      (l2.body.items as KubeObject[]).map((o) => [o.metadata.name, o.spec]),
      [
        ['new', { hostname: 'new.example' }],
        ['old', { hostname: 'old.example' }],
      ],
    );
    assert.equal(hook.received.length, 1, 'only the object stored at v1 is sent');
    const l1 = await call('GET', V1);
    assert.deepEqual(
      (l1.body.items as KubeObject[]).map((o) => [o.metadata.name, o.spec]),
      [
        ['new', { host: 'new.example' }],
        ['old', { host: 'old.example' }],
      ],
    );
    // An update at v2 rewrites the old object at the new storage version.
    await call(
      'PATCH',
      `${V2}/old`,
      { spec: { hostname: 'moved.example' } },
      'application/merge-patch+json',
    );
    const old = cluster.peek(t2, { namespace: 'default', name: 'old' })!;
    assert.equal(old.apiVersion, 'stable.example.com/v2');
    assert.deepEqual(old.spec, { hostname: 'moved.example' });
  });

  it('with strategy None rewrites the apiVersion only and calls nothing (as before)', async () => {
    installCrd({ strategy: 'None' });
    await call('POST', V1, widget('w', 'v1', 'a.example'));
    const got = await call('GET', `${V2}/w`);
    assert.equal(got.code, 200);
    assert.equal(got.body.apiVersion, 'stable.example.com/v2');
    assert.deepEqual(got.body.spec, { host: 'a.example' });
    assert.equal(hook.received.length, 0);
  });
});
