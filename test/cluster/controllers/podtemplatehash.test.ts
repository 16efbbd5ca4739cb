import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildPodhash } from '../../../scripts/podhash.mjs';
import { computeHash, podTemplateDump } from '../../../src/cluster/controllers/podtemplatehash';
import { exampleOf, randomOf, rng } from '../apiexamples';
import { goAvailable, goJsonLines } from '../goconform';

type Json = Record<string, unknown>;

const WEB = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
};

test('a simple template hashes to the name kube-controller-manager gives it', () => {
  // The values tools/podhash (controller.ComputeHash of the release) answers for this template.
  assert.equal(computeHash(WEB), '5547cb94');
  assert.equal(computeHash(WEB, 0), '75698bb574');
  assert.equal(computeHash(WEB, 1), '7fc5b56bc');
});

test('the dump is spew’s %#v of the Go value: types, zero values, nil and sorted maps', () => {
  const dump = podTemplateDump({
    metadata: { labels: { b: '2', a: '1' } },
    spec: {
      containers: [{ name: 'c', resources: { limits: { cpu: '500m' } }, args: [] }],
      terminationGracePeriodSeconds: 30,
    },
  });
  assert.ok(dump.startsWith('(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) '));
  assert.ok(
    dump.includes('Labels:(map[string]string)map[a:1 b:2] Annotations:(map[string]string)<nil>'),
  );
  assert.ok(dump.includes('TerminationGracePeriodSeconds:(*int64)30 '));
  assert.ok(dump.includes('ActiveDeadlineSeconds:(*int64)<nil> '));
  // An empty list is nil once read from protobuf.
  assert.ok(dump.includes('Args:([]string)<nil> '));
  assert.ok(
    dump.includes(
      'Limits:(v1.ResourceList)map[cpu:{i:(resource.int64Amount){value:(int64)500 scale:(resource.Scale)-3} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)500m Format:(resource.Format)DecimalSI}]',
    ),
  );
  assert.ok(
    dump.includes(
      'CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}',
    ),
  );
});

/** Quantities across ParseQuantity's paths: kept strings, canonicalised ones, inf.Dec amounts. */
const QUANTITIES = [
  '0',
  '1',
  '500m',
  '1000m',
  '0.5',
  '.5',
  '1.5',
  '1.000',
  '100Mi',
  '1536Mi',
  '1.5Gi',
  '0.5Gi',
  '8Gi',
  '1Gi',
  '7Ki',
  '1024',
  '1025',
  '2048',
  '1k',
  '1e3',
  '1E3',
  '2e-3',
  '1n',
  '0.1n',
  '1u',
  '10M',
  '-1',
  '+5',
  '-1.5Gi',
  '12345678901234567890',
  '9223372036854775807',
  '8Ei',
  '1000E',
  '1Ei',
  '0.0000000001',
  '0.0000000000',
  '123456789012345678',
  '1.23456789012345678',
  '007',
  '3.',
  ' 2 ',
  '100',
  '1000000',
  '5P',
  '0.3Ki',
];

function quantityTemplates(): Json[] {
  return QUANTITIES.map((q, i) => ({
    metadata: { labels: { app: `q${i}` } },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'i',
          resources: { limits: { cpu: q, memory: q }, requests: { cpu: q } },
        },
      ],
      volumes: [{ name: 'v', emptyDir: { sizeLimit: q } }],
      overhead: { 'example.com/x': q },
    },
  }));
}

/**
 * Timestamps are left out (the template's ObjectMeta's, and a volume claim template's): Go reads
 * them into the process's Local location, whose insides spew prints and which depend on the
 * machine and on whether the process has read its time zone yet (the fake prints UTC's). No
 * template a client sends carries one.
 */
function withoutTimes(v: unknown): unknown {
  if (Array.isArray(v)) v.forEach(withoutTimes);
  else if (v && typeof v === 'object') {
    const o = v as Json;
    for (const k of ['creationTimestamp', 'deletionTimestamp', 'managedFields']) delete o[k];
    Object.values(o).forEach(withoutTimes);
  }
  return v;
}

const TEMPLATE_KINDS: Array<[string, string, (o: Json) => unknown]> = [
  ['v1', 'PodTemplate', (o) => o.template],
  ['apps/v1', 'Deployment', (o) => (o.spec as Json | undefined)?.template],
  ['apps/v1', 'DaemonSet', (o) => (o.spec as Json | undefined)?.template],
  ['apps/v1', 'StatefulSet', (o) => (o.spec as Json | undefined)?.template],
  ['batch/v1', 'Job', (o) => (o.spec as Json | undefined)?.template],
];

test("kube-controller-manager's own ComputeHash names every template as the fake does", (t) => {
  if (!goAvailable()) {
    t.skip('skipped: Go is not installed, so kube-controller-manager cannot judge the hashes');
    return;
  }
  const next = rng(36);
  const templates: Json[] = [
    WEB,
    // Map keys in Go's order, by UTF-8 bytes: U+FF21 before U+1F600, which UTF-16 puts first.
    { metadata: { annotations: { '\u{1f600}': 'a', '\uff21': 'b', é: 'c', z: 'd' } } },
    ...quantityTemplates(),
    ...TEMPLATE_KINDS.map(([v, k, get]) => get(exampleOf(v, k)) as Json),
  ];
  while (templates.length < 600) {
    const [v, k, get] = TEMPLATE_KINDS[Math.floor(next() * TEMPLATE_KINDS.length)];
    const tmpl = get(randomOf(v, k, next));
    if (tmpl && typeof tmpl === 'object') templates.push(tmpl as Json);
  }
  const cases = templates.map((tmpl, i) => ({
    template: withoutTimes(structuredClone(tmpl)) as Json,
    // No count, zero, and counts whose bytes all differ.
    collisionCount: [null, 0, 1, 0x1234567, -3][i % 5],
  }));
  const answers = goJsonLines<{ hash?: string; dump?: string; error?: string }>(
    buildPodhash(),
    'hash',
    cases,
  );
  assert.equal(answers.length, cases.length);
  const failures: string[] = [];
  cases.forEach((c, i) => {
    const go = answers[i];
    if (go.error) return failures.push(`#${i}: Go: ${go.error}`);
    const dump = podTemplateDump(c.template);
    if (dump !== go.dump) {
      let at = 0;
      while (dump[at] === go.dump![at]) at++;
      return failures.push(
        `#${i}: dumps differ at ${at}\n  go:   …${go.dump!.slice(at - 80, at + 120)}\n  ours: …${dump.slice(at - 80, at + 120)}`,
      );
    }
    const ours = computeHash(c.template, c.collisionCount ?? undefined);
    if (ours !== go.hash) failures.push(`#${i}: hash ${ours}, Go ${go.hash}`);
  });
  assert.deepEqual(failures.slice(0, 5), []);
  // The corpus reaches what templates hold: probes, volumes, affinity, big quantities.
  const dumps = answers.map((a) => a.dump ?? '');
  for (const part of [
    'LivenessProbe:(*v1.Probe){',
    'Port:(intstr.IntOrString){Type:(intstr.Type)1',
    'EmptyDir:(*v1.EmptyDirVolumeSource){',
    'NodeAffinity:(*v1.NodeAffinity){',
    'Dec:(*inf.Dec){',
    's:(string) Format:(resource.Format)BinarySI',
  ])
    assert.ok(dumps.filter((d) => d.includes(part)).length >= 3, part);
});
