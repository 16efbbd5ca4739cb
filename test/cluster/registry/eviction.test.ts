/**
 * The pods/eviction subresource over HTTP, as kube-apiserver's EvictionREST answers it: a pod no
 * budget covers is deleted gracefully (201 Status Success, the DisruptionTarget condition); a
 * budget with no disruption left is a 429 with the DisruptionBudget cause; an allowed eviction
 * takes one from the budget and records the pod; dry runs change nothing; two budgets are a
 * Failure Status; a pod not running is evicted whatever the budget says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PDB } from '../../../src/cluster/controllers/disruption';
import { evictPod } from '../../../src/cluster/registry/eviction';
import { StatusError } from '../../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { VirtualClock } from '../../../src/util/clock';
import { POD, flush } from '../helpers';
import { served } from '../http';
import type { Served } from '../http';

type Obj = Record<string, unknown>;
const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
let s: Served;
before(async () => {
  s = await served(
    {},
    { controllers: true, clock, podReadyDelayMs: 1000, podTerminationDelayMs: 5000 },
  );
});
after(() => s.close());

const PODS = '/api/v1/namespaces/default/pods';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const eviction = (name: string, extra: Obj = {}) => ({
  apiVersion: 'policy/v1',
  kind: 'Eviction',
  metadata: { name, namespace: 'default' },
  ...extra,
});
const evict = (name: string, extra: Obj = {}, query = '') =>
  s.call('POST', `${PODS}/${name}/eviction${query}`, eviction(name, extra));
const peekPod = (name: string) => s.cluster.peek(POD, { namespace: 'default', name });
/** The Status body an eviction answers (201 even when it is a Failure). */
const evictionStatus = (status: 'Success' | 'Failure', code: number, message?: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status,
  ...(message ? { message } : {}),
  code,
});
const pdbStatus = (name: string) =>
  s.cluster.get(PDB, { namespace: 'default', name }).status as Obj;

async function runningPods(app: string, n: number): Promise<string[]> {
  const r = await s.call('POST', '/apis/apps/v1/namespaces/default/deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: app },
    spec: {
      replicas: n,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: { containers: [{ name: 'c', image: 'i:1' }] },
      },
    },
  });
  assert.equal(r.status, 201, r.body);
  await flush(clock);
  await clock.advance(1000);
  await flush(clock);
  return [...s.cluster.scan(POD, 'default')]
    .filter((p) => p.metadata.labels?.app === app)
    .map((p) => p.metadata.name!);
}

async function createBudget(name: string, app: string, spec: Obj): Promise<void> {
  const r = await s.call('POST', PDBS, {
    ...PDB,
    metadata: { name },
    spec: { selector: { matchLabels: { app } }, ...spec },
  });
  assert.equal(r.status, 201, r.body);
  await flush(clock);
}

describe('pods/eviction', () => {
  it('deletes a pod no budget covers gracefully and answers a Success Status', async () => {
    const [pod] = await runningPods('free', 1);
    const r = await evict(pod);
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(JSON.parse(r.body), evictionStatus('Success', 201));
    const p = peekPod(pod)!;
    assert.ok(p.metadata.deletionTimestamp, 'the pod is terminating');
    const cond = ((p.status as Obj).conditions as Obj[]).find((c) => c.type === 'DisruptionTarget');
    assert.deepEqual(
      { ...cond, lastTransitionTime: undefined },
      {
        type: 'DisruptionTarget',
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: undefined,
        reason: 'EvictionByEvictionAPI',
        message: 'Eviction API: evicting',
      },
    );
  });

  it('refuses with 429 and the DisruptionBudget cause when the budget allows none', async () => {
    const pods = await runningPods('tight', 2);
    await createBudget('tight', 'tight', { minAvailable: 2 });
    assert.equal(pdbStatus('tight').disruptionsAllowed, 0);
    const r = await evict(pods[0]);
    assert.equal(r.status, 429, r.body);
    assert.deepEqual(JSON.parse(r.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: 'The disruption budget tight needs 2 healthy pods and has 2 currently',
          },
        ],
      },
      code: 429,
    });
    assert.equal(peekPod(pods[0])!.metadata.deletionTimestamp, undefined);
  });

  it('takes one disruption from the budget and records the pod, then refuses the next', async () => {
    const pods = await runningPods('web', 3);
    await createBudget('web', 'web', { maxUnavailable: 1 });
    assert.equal(pdbStatus('web').disruptionsAllowed, 1);
    const dry = await evict(pods[0], {}, '?dryRun=All');
    assert.equal(dry.status, 201, dry.body);
    assert.equal(peekPod(pods[0])!.metadata.deletionTimestamp, undefined);
    assert.equal(pdbStatus('web').disruptionsAllowed, 1);
    const r = await evict(pods[0]);
    assert.equal(r.status, 201, r.body);
    assert.ok(peekPod(pods[0])!.metadata.deletionTimestamp);
    await flush(clock);
    const st = pdbStatus('web');
    assert.equal(st.disruptionsAllowed, 0);
    assert.equal(st.currentHealthy, 2);
    const next = await evict(pods[1]);
    assert.equal(next.status, 429, next.body);
    assert.match(next.body, /The disruption budget web needs 2 healthy pods and has 2 currently/);
  });

  it('evicts an unready pod without taking from a budget that is met', async () => {
    const pods = await runningPods('flaky', 3);
    await createBudget('flaky', 'flaky', { minAvailable: 2 });
    const cur = peekPod(pods[0])!;
    const conditions = ((cur.status as Obj).conditions as Obj[]).map((c) =>
      c.type === 'Ready' ? { ...c, status: 'False' } : c,
    );
    const unready = await s.call(
      'PATCH',
      `${PODS}/${pods[0]}/status`,
      { status: { conditions } },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(unready.status, 200, unready.body);
    await flush(clock);
    assert.equal(pdbStatus('flaky').currentHealthy, 2);
    assert.equal(pdbStatus('flaky').disruptionsAllowed, 0);
    const healthy = await evict(pods[1]);
    assert.equal(healthy.status, 429, healthy.body);
    const r = await evict(pods[0]);
    assert.equal(r.status, 201, r.body);
    assert.ok(peekPod(pods[0])!.metadata.deletionTimestamp);
    assert.equal(pdbStatus('flaky').disruptedPods, undefined);
  });

  it('evicts a pod that is not running whatever its budget says', async () => {
    const r = await s.call('POST', PODS, {
      ...POD,
      metadata: { name: 'pending', labels: { app: 'tight' } },
      spec: { containers: [{ name: 'c', image: 'i:1' }] },
    });
    assert.equal(r.status, 201);
    await flush(clock);
    assert.equal((peekPod('pending')!.status as Obj).phase, 'Pending');
    const ev = await evict('pending');
    assert.equal(ev.status, 201, ev.body);
    assert.ok(peekPod('pending')?.metadata.deletionTimestamp ?? !peekPod('pending'));
  });

  it('answers a Failure Status for a pod under two budgets', async () => {
    const [pod] = await runningPods('twice', 1);
    await createBudget('twice-a', 'twice', { minAvailable: 0 });
    await createBudget('twice-b', 'twice', { minAvailable: 0 });
    const r = await evict(pod);
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(
      JSON.parse(r.body),
      evictionStatus(
        'Failure',
        500,
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      ),
    );
    assert.equal(peekPod(pod)!.metadata.deletionTimestamp, undefined);
  });

  it('refuses a mismatched name, a missing pod and other verbs', async () => {
    const [pod] = await runningPods('misc', 1);
    const r = await s.call('POST', `${PODS}/${pod}/eviction`, eviction('other'));
    assert.equal(r.status, 400);
    assert.equal(
      (JSON.parse(r.body) as Obj).message,
      'name in URL does not match name in Eviction object',
    );
    const missing = await evict('nope');
    assert.equal(missing.status, 404);
    assert.equal((JSON.parse(missing.body) as Obj).message, 'pods "nope" not found');
    const get = await s.get(`${PODS}/${pod}/eviction`);
    assert.equal(get.status, 405);
  });

  it('is a 429 "still being processed" while the budget status lags its generation', async () => {
    const [pod] = await runningPods('lag', 1);
    await createBudget('lag', 'lag', { minAvailable: 0 });
    const cur = s.cluster.get(PDB, { namespace: 'default', name: 'lag' });
    // The disruption controller runs from a microtask: the eviction below comes first.
    s.cluster.update({ ...cur, spec: { ...(cur.spec as Obj), minAvailable: 1 } } as KubeObject);
    assert.throws(
      () =>
        evictPod(s.cluster, { namespace: 'default', name: pod }, eviction(pod) as KubeObject, []),
      (err: unknown) =>
        err instanceof StatusError &&
        err.code === 429 &&
        err.status.details?.retryAfterSeconds === 10 &&
        err.status.details.causes?.[0]?.message ===
          'The disruption budget lag is still being processed by the server.',
    );
  });

  it('is a 429 with Retry-After while the budget cannot be computed (its generation unobserved)', async () => {
    const cm = await s.call('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'not-a-controller' },
    });
    const uid = (JSON.parse(cm.body) as { metadata: { uid: string } }).metadata.uid;
    const made = await s.call('POST', PODS, {
      ...POD,
      metadata: {
        name: 'odd',
        labels: { app: 'odd' },
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'not-a-controller', uid, controller: true },
        ],
      },
      spec: { containers: [{ name: 'c', image: 'i:1' }] },
    });
    assert.equal(made.status, 201, made.body);
    await clock.advance(1000);
    // The controller fails safe: no disruptions, and observedGeneration stays behind.
    await createBudget('odd', 'odd', { maxUnavailable: '50%' });
    assert.equal(pdbStatus('odd').observedGeneration, undefined);
    const r = await evict('odd');
    assert.equal(r.status, 429, r.body);
    assert.equal(r.headers['retry-after'], '10');
    assert.match(r.body, /"details":\{"causes":\[.*\],"retryAfterSeconds":10\}/);
    const st = JSON.parse(r.body) as { details: Obj };
    assert.deepEqual(st.details, {
      causes: [
        {
          reason: 'DisruptionBudget',
          message: 'The disruption budget odd is still being processed by the server.',
        },
      ],
      retryAfterSeconds: 10,
    });
  });

  it('is listed in discovery as a policy/v1 Eviction one creates', async () => {
    const r = await s.get('/api/v1');
    const res = (JSON.parse(r.body) as { resources: Obj[] }).resources;
    assert.deepEqual(
      res.find((x) => x.name === 'pods/eviction'),
      {
        name: 'pods/eviction',
        singularName: '',
        namespaced: true,
        group: 'policy',
        version: 'v1',
        kind: 'Eviction',
        verbs: ['create'],
      },
    );
  });
});
