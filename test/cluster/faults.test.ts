import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FaultInjector,
  FaultsFileError,
  faultOf,
  parseFaults,
  statusFor,
  type FaultRequest,
} from '../../src/cluster/faults';

const req = (over: Partial<FaultRequest> = {}): FaultRequest => ({
  verb: 'update',
  group: '',
  resource: 'configmaps',
  subresource: '',
  namespace: 'default',
  name: 'cfg',
  userAgent: 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
  user: 'reconcile-studio',
  resourceVersion: '',
  ...over,
});

const rules = (yaml: string) => parseFaults(yaml, 'faults.yaml');

function fileError(yaml: string): FaultsFileError {
  try {
    rules(yaml);
  } catch (err) {
    assert.ok(err instanceof FaultsFileError, String(err));
    return err;
  }
  assert.fail('expected the file to be refused');
}

test('the issue example parses with every field', () => {
  const [r] = rules(`faults:
  - name: one-conflict
    match: {verb: update, resource: configmaps, subresource: status, namespace: default, name: cfg, userAgent: manager}
    times: 1
    after: 0
    probability: 0.5
    error: {code: 429}
    retryAfterSeconds: 1
    latencyMs: 1500
`);
  assert.equal(r.name, 'one-conflict');
  assert.deepEqual(r.match, {
    verb: 'update',
    resource: 'configmaps',
    subresource: 'status',
    namespace: 'default',
    name: 'cfg',
    userAgent: 'manager',
  });
  assert.deepEqual(
    [r.times, r.after, r.probability, r.error, r.retryAfterSeconds, r.latencyMs, r.line],
    [1, 0, 0.5, { code: 429 }, 1, 1500, 2],
  );
});

test('a bad faults file names the file and the line of the culprit', () => {
  const unknown = fileError(`faults:
  - error: {code: 409}
    tims: 1
`);
  assert.equal(unknown.line, 3);
  assert.match(unknown.message, /^faults\.yaml:3: unknown field "faults\[0\]\.tims"/);

  const code = fileError(`faults:
  - name: a
    error: {code: 409}
  - name: b
    error:
      code: 418
`);
  assert.equal(code.line, 6);
  assert.match(code.message, /code must be one of 403, 404, 409, 429, 500, 503, 504, got 418/);

  const type = fileError(`faults:\n  - error: {code: 500}\n    times: "two"\n`);
  assert.equal(type.line, 3);
  assert.match(type.message, /faults\[0\]\.times must be a whole number/);

  const verb = fileError(`faults:\n  - match: {verb: put}\n    error: {code: 500}\n`);
  assert.match(verb.message, /faults\.yaml:2: .*verb must be one of get, list, watch/);

  const matchKey = fileError(
    `faults:\n  - match:\n      kind: ConfigMap\n    error: {code: 500}\n`,
  );
  assert.match(matchKey.message, /faults\.yaml:3: unknown field "faults\[0\]\.match\.kind"/);

  const top = fileError(`fault:\n  - error: {code: 500}\n`);
  assert.match(top.message, /faults\.yaml:1: unknown field "fault"/);

  const syntax = fileError(`faults:\n  - error: {code: 500\n`);
  assert.ok(syntax.line >= 2, syntax.message);
});

test('rules that could never act are refused rather than ignored', () => {
  assert.match(fileError(`faults:\n  - name: x\n`).message, /faults\.yaml:2: .*does nothing/);
  assert.match(
    fileError(`faults:\n  - error: {code: 409}\n    retryAfterSeconds: 2\n`).message,
    /faults\.yaml:3: .*retryAfterSeconds applies only to error codes 429 and 503/,
  );
  assert.match(
    fileError(`faults:\n  - match: {verb: update}\n    closeWatch: true\n`).message,
    /closeWatch applies only to watch, not update/,
  );
  assert.match(
    fileError(`faults:\n  - match: {verb: get}\n    gone: true\n`).message,
    /gone applies only to list and watch/,
  );
  assert.match(
    fileError(`faults:\n  - probability: 1.5\n    error: {code: 500}\n`).message,
    /probability must be between 0 and 1/,
  );
});

test('an empty file or an empty list injects nothing', () => {
  assert.deepEqual(rules(''), []);
  assert.deepEqual(rules('faults: []\n'), []);
});

test('every match field narrows; the user agent matches its product token', () => {
  const inj = new FaultInjector(
    rules(`faults:
  - match: {verb: update, resource: configmaps, subresource: status, namespace: default, name: cfg, userAgent: manager}
    error: {code: 500}
`),
  );
  assert.equal(inj.decide(req()), undefined, 'no subresource');
  assert.equal(inj.decide(req({ subresource: 'status', verb: 'patch' })), undefined);
  assert.equal(inj.decide(req({ subresource: 'status', name: 'other' })), undefined);
  assert.equal(inj.decide(req({ subresource: 'status', namespace: 'prod' })), undefined);
  assert.equal(inj.decide(req({ subresource: 'status', userAgent: 'kubectl/v1.31' })), undefined);
  assert.equal(
    inj.decide(req({ subresource: 'status', userAgent: 'manager-extra/v1' })),
    undefined,
  );
  const hit = inj.decide(req({ subresource: 'status' }));
  assert.equal(hit?.error?.code, 500);
  assert.equal(hit?.fault, 'faults[0]');
  assert.equal(faultOf(hit?.error), 'faults[0]');
});

test('after lets the first matching requests through, times bounds the hits', () => {
  const inj = new FaultInjector(
    rules(`faults:\n  - name: c\n    after: 2\n    times: 2\n    error: {code: 409}\n`),
  );
  const codes = Array.from({ length: 6 }, () => inj.decide(req())?.error?.code ?? 200);
  assert.deepEqual(codes, [200, 200, 409, 409, 200, 200]);
});

test('the first rule that fires decides; the others do not count the request', () => {
  const inj = new FaultInjector(
    rules(`faults:
  - {name: first, times: 1, error: {code: 409}}
  - {name: second, times: 1, error: {code: 500}}
`),
  );
  assert.deepEqual(
    [inj.decide(req())?.fault, inj.decide(req())?.fault, inj.decide(req())?.fault],
    ['first', 'second', undefined],
  );
});

test("an injected rule decides before the file's, whose counters are kept", () => {
  const inj = new FaultInjector(
    rules(`faults:\n  - {name: file, after: 1, times: 1, error: {code: 500}}\n`),
  );
  assert.equal(inj.decide(req()), undefined, 'the file rule lets its first request through');
  inj.inject({ name: 'held', match: { name: 'cfg' }, times: 1, error: { code: 409 }, line: 0 });
  assert.deepEqual(
    [inj.decide(req())?.fault, inj.decide(req())?.fault, inj.decide(req())?.fault],
    ['held', 'file', undefined],
  );
});

test('probability draws are reproducible with the same seed and differ with another', () => {
  const file = rules(`faults:\n  - probability: 0.5\n    error: {code: 503}\n`);
  const run = (seed: number) => {
    const inj = new FaultInjector(file, seed);
    return Array.from({ length: 64 }, () => (inj.decide(req()) ? 1 : 0)).join('');
  };
  assert.equal(run(7), run(7));
  assert.notEqual(run(7), run(8));
  const hits = [...run(7)].filter((c) => c === '1').length;
  assert.ok(hits > 16 && hits < 48, `about half of 64 should fire, got ${hits}`);
  const inj = new FaultInjector(file, 7);
  const first = Array.from({ length: 8 }, () => (inj.decide(req()) ? 1 : 0)).join('');
  inj.reload(file);
  assert.equal(Array.from({ length: 8 }, () => (inj.decide(req()) ? 1 : 0)).join(''), first);
});

test('gone only hits lists and watches from a resourceVersion the client had', () => {
  const inj = new FaultInjector(rules(`faults:\n  - gone: true\n`));
  assert.equal(inj.decide(req({ verb: 'list', resourceVersion: '' })), undefined);
  assert.equal(inj.decide(req({ verb: 'list', resourceVersion: '0' })), undefined);
  assert.equal(inj.decide(req({ verb: 'get', resourceVersion: '5' })), undefined);
  const g = inj.decide(req({ verb: 'watch', resourceVersion: '42' }))?.gone;
  assert.equal(g?.code, 410);
  assert.equal(g?.reason, 'Expired');
  assert.match(g?.message ?? '', /^too old resource version: 42/);
});

test('each code is the Status kube-apiserver answers with', () => {
  const r = req({ subresource: 'status' });
  const s = (code: 403 | 404 | 409 | 429 | 500 | 503 | 504, retry?: number) =>
    statusFor(code, r, retry).status;
  assert.deepEqual(
    [s(409).reason, s(409).message],
    [
      'Conflict',
      'Operation cannot be fulfilled on configmaps "cfg": the object has been modified; please apply your changes to the latest version and try again',
    ],
  );
  assert.equal(
    s(403).message,
    'configmaps "cfg" is forbidden: User "reconcile-studio" cannot update resource "configmaps/status" in API group "" in the namespace "default"',
  );
  assert.deepEqual([s(404).reason, s(404).message], ['NotFound', 'configmaps "cfg" not found']);
  assert.deepEqual(
    [s(429, 3).reason, s(429, 3).details?.retryAfterSeconds],
    ['TooManyRequests', 3],
  );
  assert.equal(s(500).reason, 'InternalError');
  assert.match(s(500).message, /^Internal error occurred: /);
  assert.deepEqual(
    [s(503, 2).reason, s(503, 2).details?.retryAfterSeconds],
    ['ServiceUnavailable', 2],
  );
  assert.deepEqual([s(504).code, s(504).reason], [504, 'Timeout']);
  assert.match(s(504).message, /^Timeout: /);
});

test('a 403 naming a quota is the ResourceQuota admission refusal, not the RBAC denial', () => {
  const inj = new FaultInjector(
    rules(`faults:
  - error: {code: 403, quota: compute, limited: 2}
`),
  );
  const create = inj.decide(
    req({ verb: 'create', resource: 'pods', name: '', objectName: 'web-1' }),
  )?.error?.status;
  assert.deepEqual(
    [create?.code, create?.reason, create?.message],
    [
      403,
      'Forbidden',
      'pods "web-1" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2',
    ],
  );
  const update = inj.decide(
    req({ verb: 'update', group: 'apps', resource: 'deployments', name: 'shop' }),
  )?.error?.status;
  assert.equal(
    update?.message,
    'deployments.apps "shop" is forbidden: exceeded quota: compute, requested: count/deployments.apps=1, used: count/deployments.apps=2, limited: count/deployments.apps=2',
  );
  // Without `limited` the quota allows none of the resource.
  const zero = new FaultInjector(rules(`faults:\n  - error: {code: 403, quota: q}\n`));
  assert.match(
    zero.decide(req())?.error?.message ?? '',
    /exceeded quota: q, requested: configmaps=1, used: configmaps=0, limited: configmaps=0$/,
  );
});

test('quota and limited are refused where they cannot apply, at their line', () => {
  const notForbidden = fileError(`faults:\n  - error: {code: 409, quota: compute}\n`);
  assert.equal(notForbidden.line, 2);
  assert.match(notForbidden.message, /error\.quota applies only to code 403/);
  assert.match(
    fileError(`faults:\n  - error: {code: 403, limited: 2}\n`).message,
    /error\.limited applies only with faults\[0\]\.error\.quota/,
  );
  assert.match(
    fileError(`faults:\n  - error: {code: 403, quota: q, limited: -1}\n`).message,
    /error\.limited must be a whole number from 0/,
  );
  assert.match(
    fileError(`faults:\n  - error: {code: 403, reason: quota}\n`).message,
    /unknown field "faults\[0\]\.error\.reason" \(known: code, quota, limited\)/,
  );
});
