import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kindStruct } from '../../../src/cluster/api/apigraph';
import { applyDefaults, hasDefaults } from '../../../src/cluster/api/defaulting';
import { clone } from '../../../src/cluster/apimachinery/clone';
import { loadScenarios } from '../../differential/scenario';
import { randomOf, rng } from '../apiexamples';
import { goAvailable } from '../goconform';
import { goDefault, goProbes, goRoundtrip } from '../defaultingjudge';
import generated from '../../../generated/defaults.json';

type Json = Record<string, unknown>;

const KINDS = Object.keys(generated.kinds)
  .map((k) => {
    const [group, version, kind] = k.split('/');
    return { apiVersion: group ? `${group}/${version}` : version, kind };
  })
  .filter((k) => kindStruct(k.apiVersion, k.kind));

/** Whether the release serves `apiVersion` `kind` (the generated rules are of served kinds only). */
function served(o: Json): boolean {
  return KINDS.some((k) => k.apiVersion === o.apiVersion && k.kind === o.kind);
}

/** Objects written by hand where a defaulter reads other fields. */
const READ_OTHER_FIELDS: Json[] = [
  {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'l' },
    spec: {
      limits: [
        { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m' } },
        { type: 'Container', default: { cpu: '1' }, min: { memory: '10Mi' } },
        { type: 'Pod', max: { cpu: '4' } },
      ],
    },
  },
  ...[
    'nginx',
    'nginx:latest',
    'nginx:1.27',
    'reg:5000/nginx',
    'reg:5000/nginx:v1',
    'nginx@sha256:' + 'a'.repeat(64),
  ].map((image) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'c', image }] },
  })),
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: {
      hostNetwork: true,
      containers: [
        {
          name: 'c',
          image: 'x:1',
          ports: [{ containerPort: 8080 }],
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
        },
      ],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { strategy: { type: 'Recreate' } },
  },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { strategy: {} } },
  {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'd' },
    spec: { updateStrategy: { type: 'OnDelete' } },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 's' },
    spec: { updateStrategy: { type: 'OnDelete' } },
  },
  { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { completions: 3 } },
  { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { parallelism: 2 } },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j' },
    spec: { completionMode: 'Indexed', completions: 2, backoffLimitPerIndex: 1 },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j' },
    spec: { podFailurePolicy: { rules: [] } },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { sessionAffinity: 'ClientIP', ports: [{ port: 80 }] },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { type: 'LoadBalancer', ports: [{ port: 80, targetPort: 0 }] },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { type: 'NodePort', externalTrafficPolicy: '', ports: [{ port: 80 }] },
  },
];

/** The built-in objects the differential scenarios send. */
function scenarioObjects(): Json[] {
  const out: Json[] = [];
  for (const s of loadScenarios(join(__dirname, '..', '..', 'differential', 'scenarios')))
    for (const step of s.steps) {
      const b = step.body as Json | undefined;
      if (
        b &&
        typeof b === 'object' &&
        typeof b.kind === 'string' &&
        typeof b.apiVersion === 'string'
      )
        if (hasDefaults(b.apiVersion, b.kind) && kindStruct(b.apiVersion, b.kind)) out.push(b);
    }
  return out;
}

/** The paths where two JSON values differ, at most `limit`. */
function differences(a: unknown, b: unknown, path = '', out: string[] = [], limit = 6): string[] {
  if (out.length >= limit) return out;
  // A DRA taint's timeAdded is the defaulting's clock: each side's own.
  if (path.endsWith('.timeAdded') && typeof a === 'string' && typeof b === 'string') return out;
  if (JSON.stringify(a) === JSON.stringify(b)) return out;
  if (
    a &&
    b &&
    typeof a === 'object' &&
    typeof b === 'object' &&
    !Array.isArray(a) === !Array.isArray(b)
  ) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) differences((a as Json)[k], (b as Json)[k], `${path}.${k}`, out, limit);
    return out;
  }
  out.push(
    `${path}: go ${JSON.stringify(a)?.slice(0, 120)} fake ${JSON.stringify(b)?.slice(0, 120)}`,
  );
  return out;
}

/** Defaults each object with the fake and with Go; answers what differs, object by object. */
function judge(objects: Json[]): string[] {
  const ours = objects.map((o) => {
    const c = clone(o);
    applyDefaults(c, String(o.apiVersion), String(o.kind));
    return c;
  });
  const go = goDefault(objects);
  const back = goRoundtrip(ours);
  const failures: string[] = [];
  objects.forEach((o, i) => {
    if (go[i].error) return; // Go cannot decode it: not a defaulting question
    const d = differences(go[i], back[i]);
    if (d.length)
      failures.push(
        `${String(o.apiVersion)} ${String(o.kind)} ${JSON.stringify(o).slice(0, 200)}\n    ${d.join('\n    ')}`,
      );
  });
  return failures;
}

test('the generated rules cover every served kind the release defaults', () => {
  assert.ok(KINDS.length >= 35, `${KINDS.length} kinds with defaults`);
  for (const k of [
    '/v1/Pod',
    'apps/v1/Deployment',
    'batch/v1/Job',
    'storage.k8s.io/v1/StorageClass',
  ])
    assert.ok(k in generated.kinds, k);
});

/**
 * The probes the rules were read from, of served kinds: each kind's bare, expanded and emptied
 * probes, and an even sample of the ones with one struct, list or map left out (all of them
 * take half a minute to judge).
 */
function sampledProbes(perKind = 24): Json[] {
  const byKind = new Map<string, Json[]>();
  for (const o of goProbes().filter(served)) {
    const k = `${String(o.apiVersion)}/${String(o.kind)}`;
    byKind.set(k, [...(byKind.get(k) ?? []), o]);
  }
  return [...byKind.values()].flatMap((ps) => {
    if (ps.length <= perKind) return ps;
    const step = (ps.length - 3) / (perKind - 3);
    return [
      ...ps.slice(0, 3),
      ...Array.from({ length: perKind - 3 }, (_, i) => ps[3 + Math.floor(i * step)]),
    ];
  });
}

test('defaults every kind as the release does, on its probes', (t) => {
  if (!goAvailable()) return t.skip('skipped: Go is not installed, so the release cannot judge');
  const failures = judge(sampledProbes());
  assert.deepEqual(failures, []);
});

test('defaults random objects of every kind as the release does', (t) => {
  if (!goAvailable()) return t.skip('skipped: Go is not installed, so the release cannot judge');
  const next = rng(20261203);
  const objects = KINDS.flatMap((k) =>
    Array.from({ length: 12 }, () => randomOf(k.apiVersion, k.kind, next)),
  );
  assert.deepEqual(judge(objects), []);
});

test('defaults what the defaulters derive from other fields as the release does', (t) => {
  if (!goAvailable()) return t.skip('skipped: Go is not installed, so the release cannot judge');
  assert.deepEqual(judge(READ_OTHER_FIELDS), []);
});

test('defaults the objects of the differential scenarios as the release does', (t) => {
  if (!goAvailable()) return t.skip('skipped: Go is not installed, so the release cannot judge');
  assert.deepEqual(judge(scenarioObjects()), []);
});
