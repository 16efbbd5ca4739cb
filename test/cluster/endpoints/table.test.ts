import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evalJsonPath } from '../../../src/cluster/apimachinery/jsonpath';
import {
  codedColumnNames,
  humanDuration,
  releaseColumns,
  toTable,
} from '../../../src/cluster/endpoints/table';
import { formatQuantity, parseQuantity } from '../../../src/cluster/apimachinery/quantity';
import { convertEvent } from '../../../src/cluster/controllers/events';
import { newCluster, widget, widgetCrd } from '../helpers';

test('printer-column JSONPath supports fields, indexes and filters', () => {
  const o = {
    status: {
      conditions: [
        { type: 'A', status: 'False' },
        { type: 'Ready', status: 'True' },
      ],
    },
    spec: { list: [1, 2] },
  };
  assert.deepEqual(evalJsonPath(o, '.status.conditions[?(@.type=="Ready")].status'), ['True']);
  assert.deepEqual(evalJsonPath(o, '.spec.list[1]'), [2]);
  assert.deepEqual(evalJsonPath(o, '.missing.x'), []);
});

test('ages print like kubectl', () => {
  assert.equal(humanDuration(5_000), '5s');
  assert.equal(humanDuration(150_000), '2m30s');
  assert.equal(humanDuration(3 * 3600_000), '3h');
  assert.equal(humanDuration(50 * 3600_000), '2d2h');
});

test('a custom resource table has Name plus the additionalPrinterColumns', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  const w = cluster.create(widget('w1', 7));
  const t = cluster.registry.forKind({ apiVersion: 'example.com/v1', kind: 'Widget' })!;
  const table = toTable(t, [w], cluster.clock.now(), {}) as {
    columnDefinitions: Array<{ name: string }>;
    rows: Array<{ cells: unknown[] }>;
  };
  assert.deepEqual(
    table.columnDefinitions.map((c) => c.name),
    ['Name', 'Size'],
  );
  assert.deepEqual(table.rows[0].cells, ['w1', 7]);
  cluster.close();
});

test('quantities parse and print in canonical form', () => {
  assert.equal(parseQuantity('500m'), 0.5);
  assert.equal(parseQuantity('1Gi'), 1024 ** 3);
  assert.equal(formatQuantity(1.5, 'DecimalSI'), '1500m');
  assert.equal(formatQuantity(2 * 1024 ** 3, 'BinarySI'), '2Gi');
  assert.equal(parseQuantity('abc'), undefined);
});

test('core/v1 and events.k8s.io/v1 Events convert both ways', () => {
  const core = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e' },
    involvedObject: { kind: 'Pod', name: 'p' },
    message: 'hi',
    reason: 'R',
    type: 'Normal',
    count: 2,
  };
  const ev = convertEvent(structuredClone(core), 'events.k8s.io/v1') as Record<string, unknown>;
  assert.equal(ev.note, 'hi');
  assert.deepEqual(ev.regarding, { kind: 'Pod', name: 'p' });
  const back = convertEvent(ev as never, 'v1') as Record<string, unknown>;
  assert.equal(back.message, 'hi');
  assert.equal(back.count, 2);
});

/** The cells of one object's row, as the built-in kind's table prints it (the wide ones after). */
function cellsOf(apiVersion: string, obj: Record<string, unknown>, now: number): unknown[] {
  const { cluster } = newCluster({ controllers: false });
  const t = cluster.registry.forKind({ apiVersion, kind: obj.kind as string })!;
  const table = toTable(t, [{ apiVersion, ...obj } as never], now, {}) as {
    rows: Array<{ cells: unknown[] }>;
  };
  cluster.close();
  return table.rows[0].cells;
}

const T0 = Date.parse('2026-01-01T00:00:00Z');
const meta = (name: string) => ({
  name,
  namespace: 'default',
  creationTimestamp: '2026-01-01T00:00:00Z',
});

test("a Job's row is printJob's: status from its conditions, completions, duration", () => {
  const job = {
    kind: 'Job',
    metadata: meta('j'),
    spec: { completions: 3, parallelism: 2 },
    status: {
      succeeded: 3,
      startTime: '2026-01-01T00:00:00Z',
      completionTime: '2026-01-01T00:00:42Z',
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True' },
        { type: 'Complete', status: 'True' },
      ],
    },
  };
  assert.deepEqual(cellsOf('batch/v1', job, T0 + 60_000), [
    'j',
    'Complete',
    '3/3',
    '42s',
    '60s',
    '',
    '',
    '<none>',
  ]);
  const running = {
    kind: 'Job',
    metadata: meta('r'),
    spec: { parallelism: 4 },
    status: { startTime: '2026-01-01T00:00:00Z' },
  };
  assert.deepEqual(cellsOf('batch/v1', running, T0 + 5_000).slice(0, 5), [
    'r',
    'Running',
    '0/1 of 4',
    '5s',
    '5s',
  ]);
});

test("a CronJob's row is printCronJob's", () => {
  const cj = {
    kind: 'CronJob',
    metadata: meta('c'),
    spec: { schedule: '*/1 * * * *' },
    status: { active: [{ name: 'c-1' }], lastScheduleTime: '2026-01-01T00:01:00Z' },
  };
  assert.deepEqual(cellsOf('batch/v1', cj, T0 + 90_000).slice(0, 7), [
    'c',
    '*/1 * * * *',
    '<none>',
    '<unset>',
    1,
    '30s',
    '90s',
  ]);
});

test("a pod's STATUS is printPod's: Completed, a failed container's reason, Terminating", () => {
  const terminated = (exitCode: number, reason: string) => ({
    kind: 'Pod',
    metadata: meta('p'),
    spec: { containers: [{ name: 'a' }] },
    status: {
      phase: exitCode ? 'Failed' : 'Succeeded',
      containerStatuses: [
        { name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode, reason } } },
      ],
    },
  });
  assert.equal(cellsOf('v1', terminated(0, 'Completed'), T0)[2], 'Completed');
  assert.equal(cellsOf('v1', terminated(1, 'Error'), T0)[2], 'Error');
  assert.equal(cellsOf('v1', terminated(137, ''), T0)[2], 'ExitCode:137');
  const deleting = {
    kind: 'Pod',
    metadata: { ...meta('d'), deletionTimestamp: '2026-01-01T00:00:00Z' },
    spec: { containers: [] },
    status: { phase: 'Running' },
  };
  assert.equal(cellsOf('v1', deleting, T0)[2], 'Terminating');
});

test('the columns whose cells are code are the release’s columns of the kind, by name and in order', () => {
  for (const [kind, names] of Object.entries(codedColumnNames())) {
    const release = releaseColumns(kind)?.map((c) => c.name);
    assert.ok(release, `printers.go has no columns for ${kind}`);
    // The code may stop early (the -o wide columns it leaves out come last), never differ.
    assert.deepEqual(names, release.slice(0, names.length), kind);
  }
});

test('the rows of kinds printers.go prints in few words are its rows', () => {
  const at = T0 + 5_000;
  assert.deepEqual(
    cellsOf(
      'coordination.k8s.io/v1',
      { kind: 'Lease', metadata: meta('l'), spec: { holderIdentity: 'a' } },
      at,
    ),
    ['l', 'a', '5s'],
  );
  assert.deepEqual(
    cellsOf(
      'storage.k8s.io/v1',
      {
        kind: 'StorageClass',
        metadata: {
          ...meta('s'),
          annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
        },
        provisioner: 'example.com/x',
      },
      at,
    ),
    ['s (default)', 'example.com/x', 'Delete', 'Immediate', false, '5s'],
  );
  assert.deepEqual(
    cellsOf(
      'rbac.authorization.k8s.io/v1',
      {
        kind: 'RoleBinding',
        metadata: meta('rb'),
        roleRef: { kind: 'ClusterRole', name: 'view' },
        subjects: [
          { kind: 'User', name: 'alice' },
          { kind: 'ServiceAccount', namespace: 'ns', name: 'sa' },
          { kind: 'User', name: 'bob' },
        ],
      },
      at,
    ),
    ['rb', 'ClusterRole/view', '5s', 'alice, bob', '', 'ns/sa'],
  );
  assert.deepEqual(
    cellsOf(
      'apps/v1',
      {
        kind: 'ControllerRevision',
        metadata: {
          ...meta('cr'),
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: true },
          ],
        },
        revision: 3,
      },
      at,
    ),
    ['cr', 'daemonset.apps/ds', 3, '5s'],
  );
});

test("an Event's row is printEvent's: never seen without timestamps, counted once, named", () => {
  const e = {
    kind: 'Event',
    metadata: meta('e.1'),
    involvedObject: { kind: 'Pod', name: 'p' },
    type: 'Normal',
    reason: 'Started',
    message: ' started \n',
  };
  const cells = cellsOf('v1', e, T0 + 5_000);
  assert.deepEqual(
    [cells[0], cells[3], cells[6], cells[7], cells[8], cells[9]],
    ['<unknown>', 'pod/p', 'started', '<unknown>', 1, 'e.1'],
  );
});

test('EndpointSlice, Ingress and CertificateSigningRequest rows are printers.go’s', () => {
  const at = T0 + 5_000;
  assert.deepEqual(
    cellsOf(
      'discovery.k8s.io/v1',
      {
        kind: 'EndpointSlice',
        metadata: meta('es'),
        addressType: 'IPv4',
        ports: [{ port: 80 }, { name: 'metrics' }, {}, { port: 9 }],
        endpoints: [{ addresses: ['10.1.2.3'] }],
      },
      at,
    ),
    ['es', 'IPv4', '80,metrics,* + 1 more...', '10.1.2.3', '5s'],
  );
  assert.deepEqual(
    cellsOf(
      'networking.k8s.io/v1',
      { kind: 'Ingress', metadata: meta('i'), spec: { rules: [{}] } },
      at,
    ),
    ['i', '<none>', '*', '', '80', '5s'],
  );
  assert.deepEqual(
    cellsOf(
      'certificates.k8s.io/v1',
      {
        kind: 'CertificateSigningRequest',
        metadata: meta('c'),
        spec: { signerName: 'example.com/x', username: 'admin', expirationSeconds: 3600 },
        status: { conditions: [{ type: 'Approved' }], certificate: 'Y2VydA==' },
      },
      at,
    ),
    ['c', '5s', 'example.com/x', 'admin', '60m', 'Approved,Issued'],
  );
});
