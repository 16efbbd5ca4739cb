/**
 * kubectl's pod subresources against `reconcile-studio serve`: `kubectl logs` (one container,
 * `-c`, `--tail`, `--timestamps`, the apiserver's errors) and `kubectl logs -f` ending when the
 * pod does; `kubectl drain` evicting through pods/eviction, held by a PodDisruptionBudget (the
 * 429 it retries) and let through when the budget allows; a raw Eviction POST.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { kubectl, ok, serve } from './serve';
import type { Served } from './serve';

let s: Served;
before(async () => {
  s = await serve();
  await ok(s.kubeconfig, ['create', 'namespace', 'pods']);
});
after(async () => {
  await s?.stop();
});

const k = (...args: string[]) => ok(s.kubeconfig, ['-n', 'pods', ...args]);
const kr = (...args: string[]) => kubectl(s.kubeconfig, ['-n', 'pods', ...args]);

const pod = (name: string, containers: string[], labels = '{}') =>
  `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: pods, labels: ${labels}}
spec:
  containers:
${containers.map((c) => `  - {name: ${c}, image: "busybox:1.36"}`).join('\n')}
`;

const deployment = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: pods}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: app, image: "busybox:1.36"}]}
`;

/** A rolled-out Deployment NAME and a PodDisruptionBudget NAME over its pods. */
async function guardedDeployment(name: string, replicas: number, minAvailable: number) {
  const budget = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ${name}, namespace: pods}
spec: {minAvailable: ${minAvailable}, selector: {matchLabels: {app: ${name}}}}
`;
  await ok(s.kubeconfig, ['apply', '-f', '-'], `${deployment(name, replicas)}---\n${budget}`);
  await k('rollout', 'status', `deployment/${name}`, '--timeout=20s');
}

test('kubectl logs shows the container log with the options kubectl sends', async () => {
  await ok(s.kubeconfig, ['apply', '-f', '-'], pod('one', ['app']));
  await k('wait', '--for=condition=Ready', 'pod/one', '--timeout=20s');
  const out = await k('logs', 'one');
  const lines = out.trimEnd().split('\n');
  assert.equal(lines.length, 2);
  assert.match(
    lines[0],
    /^time="[^"]+" level=info msg="Container started" container=app image=busybox:1.36$/,
  );
  assert.match(lines[1], /msg="Container is ready" container=app$/);
  assert.match(
    await k('logs', 'one', '--tail=1'),
    /^time="[^"]+" level=info msg="Container is ready"/,
  );
  for (const line of (await k('logs', 'one', '--timestamps')).trimEnd().split('\n'))
    assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z time="/);
  const prev = await kr('logs', 'one', '--previous');
  assert.notEqual(prev.code, 0);
  assert.match(
    prev.stderr,
    /Error from server \(BadRequest\): previous terminated container "app" in pod "one" not found/,
  );
  const missing = await kr('logs', 'nope');
  assert.match(missing.stderr, /error from server \(NotFound\): pods "nope" not found/);
});

test('kubectl logs picks a container with -c and names the others', async () => {
  await ok(s.kubeconfig, ['apply', '-f', '-'], pod('two', ['a', 'b']));
  await k('wait', '--for=condition=Ready', 'pod/two', '--timeout=20s');
  assert.match(await k('logs', 'two', '-c', 'b'), /msg="Container started" container=b /);
  const bad = await kr('logs', 'two', '-c', 'zz');
  assert.match(bad.stderr, /container zz is not valid for pod two/);
  // Without -c kubectl chooses the first container itself and says so.
  const dflt = await kr('logs', 'two');
  assert.equal(dflt.code, 0);
  assert.match(dflt.stdout, /container=a /);
  assert.match(dflt.stderr, /Defaulted container "a" out of: a, b/);
});

test('kubectl logs -f streams until the pod is deleted', async () => {
  await ok(s.kubeconfig, ['apply', '-f', '-'], pod('followed', ['app']));
  await k('wait', '--for=condition=Ready', 'pod/followed', '--timeout=20s');
  const f = spawn('kubectl', [
    '--kubeconfig',
    s.kubeconfig,
    '-n',
    'pods',
    'logs',
    '-f',
    'followed',
  ]);
  let out = '';
  f.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => f.once('exit', r));
  for (let i = 0; i < 400 && !out.includes('Container is ready'); i++)
    await new Promise((r) => setTimeout(r, 25));
  assert.match(out, /Container is ready/);
  await k('delete', 'pod', 'followed', '--wait=false');
  assert.equal(await exited, 0);
  assert.match(out, /msg="Received SIGTERM, shutting down" container=app gracePeriodSeconds=30\n/);
  assert.match(out, /msg="Container terminated" container=app exitCode=0 reason=Completed\n$/);
});

test('kubectl drain is held by a PodDisruptionBudget with the 429 and retries', async () => {
  await guardedDeployment('held', 2, 2);
  const r = await kubectl(s.kubeconfig, [
    'drain',
    'reconcile-studio-node',
    '--pod-selector=app=held',
    '--timeout=3s',
  ]);
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /error when evicting pods\/"held-[a-z0-9-]+" -n "pods" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./,
  );
  assert.equal(
    (await k('get', 'pods', '-l', 'app=held', '-o', 'name')).trim().split('\n').length,
    2,
  );
  assert.match(
    await k('get', 'pdb', 'held'),
    /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\nheld\s+2\s+N\/A\s+0\s+\S+\n$/,
  );
  await ok(s.kubeconfig, ['uncordon', 'reconcile-studio-node']);
});

test('kubectl drain evicts what the budget allows and waits for the pods to go', async () => {
  await guardedDeployment('spare', 1, 0);
  const before = (await k('get', 'pods', '-l', 'app=spare', '-o', 'name')).trim();
  const out = await ok(s.kubeconfig, [
    'drain',
    'reconcile-studio-node',
    '--pod-selector=app=spare',
    '--timeout=20s',
  ]);
  assert.match(out, new RegExp(`${before.replace('pod/', 'pod\\/')} evicted`));
  assert.match(out, /node\/reconcile-studio-node drained/);
  await ok(s.kubeconfig, ['uncordon', 'reconcile-studio-node']);
});

test('an Eviction POSTed with kubectl create --raw deletes the pod', async () => {
  await ok(s.kubeconfig, ['apply', '-f', '-'], pod('raw', ['app']));
  await k('wait', '--for=condition=Ready', 'pod/raw', '--timeout=20s');
  const out = await ok(
    s.kubeconfig,
    ['create', '--raw', '/api/v1/namespaces/pods/pods/raw/eviction', '-f', '-'],
    JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'raw' } }),
  );
  assert.deepEqual(JSON.parse(out), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    code: 201,
  });
  await k('wait', '--for=delete', 'pod/raw', '--timeout=20s');
});
