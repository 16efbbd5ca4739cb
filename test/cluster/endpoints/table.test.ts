import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evalJsonPath } from '../../../src/cluster/apimachinery/jsonpath';
import { humanDuration, toTable } from '../../../src/cluster/endpoints/table';
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
