import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import {
  AnnotationChangedPredicate,
  GenerationChangedPredicate,
  LabelChangedPredicate,
  ResourceVersionChangedPredicate,
  and,
  evaluate,
  newPredicateFuncs,
  not,
  or,
} from '../../src/runtime/predicate';
import {
  EnqueueRequestForObject,
  EnqueueRequestForOwner,
  EnqueueRequestsFromMapFunc,
} from '../../src/runtime/handler';
import type { Request } from '../../src/runtime/reconcile';

function obj(meta: Partial<KubeObject['metadata']>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', ...meta } };
}

test('GenerationChanged passes updates with a new generation only; create/delete always pass', () => {
  const p = GenerationChangedPredicate;
  assert.equal(evaluate(p, 'update', obj({ generation: 2 }), obj({ generation: 1 })), true);
  assert.equal(
    evaluate(p, 'update', obj({ generation: 1, resourceVersion: '9' }), obj({ generation: 1 })),
    false,
  );
  assert.equal(evaluate(p, 'create', obj({})), true);
  assert.equal(evaluate(p, 'delete', obj({})), true);
  assert.equal(evaluate(p, 'generic', obj({})), true);
});

test('ResourceVersionChanged, LabelChanged and AnnotationChanged judge only their field', () => {
  assert.equal(
    evaluate(
      ResourceVersionChangedPredicate,
      'update',
      obj({ resourceVersion: '2' }),
      obj({ resourceVersion: '1' }),
    ),
    true,
  );
  assert.equal(
    evaluate(
      ResourceVersionChangedPredicate,
      'update',
      obj({ resourceVersion: '1' }),
      obj({ resourceVersion: '1' }),
    ),
    false,
  );
  assert.equal(
    evaluate(
      LabelChangedPredicate,
      'update',
      obj({ labels: { a: '2' } }),
      obj({ labels: { a: '1' } }),
    ),
    true,
  );
  assert.equal(
    evaluate(
      LabelChangedPredicate,
      'update',
      obj({ labels: { a: '1' } }),
      obj({ labels: { a: '1' } }),
    ),
    false,
  );
  assert.equal(
    evaluate(AnnotationChangedPredicate, 'update', obj({ annotations: { x: 'y' } }), obj({})),
    true,
  );
  assert.equal(
    evaluate(AnnotationChangedPredicate, 'update', obj({ labels: { a: 'b' } }), obj({})),
    false,
  );
});

test('and/or/not combine per event kind', () => {
  const gen = GenerationChangedPredicate;
  const lab = LabelChangedPredicate;
  const newer = obj({ generation: 1, labels: { a: 'x' } });
  const older = obj({ generation: 1 });
  assert.equal(evaluate(or(gen, lab), 'update', newer, older), true);
  assert.equal(evaluate(and(gen, lab), 'update', newer, older), false);
  assert.equal(evaluate(not(gen), 'update', newer, older), true);
  assert.equal(evaluate(not(gen), 'create', newer), false, 'not(pass) on create is false');
  const named = newPredicateFuncs((o) => o.metadata.name === 'a');
  assert.equal(evaluate(named, 'delete', obj({})), true);
  assert.equal(evaluate(named, 'delete', obj({ name: 'b' })), false);
});

function collect(fn: (enqueue: (r: Request) => void) => void): string[] {
  const out: string[] = [];
  fn((r) => out.push(`${r.namespace}/${r.name}`));
  return out;
}

test('EnqueueRequestForObject maps an update of one object to one request', () => {
  const h = new EnqueueRequestForObject();
  assert.deepEqual(
    collect((q) => h.handle('update', obj({}), obj({}), q)),
    ['ns/a'],
  );
});

test('EnqueueRequestForOwner matches owners by group and kind, not version, and only controllers', () => {
  const h = new EnqueueRequestForOwner({ apiVersion: 'apps.example.com/v1', kind: 'WebApp' });
  const child = obj({
    ownerReferences: [
      {
        apiVersion: 'apps.example.com/v1beta1',
        kind: 'WebApp',
        name: 'owner',
        uid: '1',
        controller: true,
      },
      { apiVersion: 'apps.example.com/v1', kind: 'WebApp', name: 'other', uid: '2' },
      { apiVersion: 'other.io/v1', kind: 'WebApp', name: 'foreign', uid: '3', controller: true },
    ],
  });
  assert.deepEqual(
    collect((q) => h.handle('create', child, undefined, q)),
    ['ns/owner'],
  );
  const all = new EnqueueRequestForOwner(
    { apiVersion: 'apps.example.com/v1', kind: 'WebApp' },
    false,
  );
  assert.deepEqual(
    collect((q) => all.handle('create', child, undefined, q)),
    ['ns/owner', 'ns/other'],
  );
});

test('on update both the old and the new owner are reconciled', () => {
  const h = new EnqueueRequestForOwner({ apiVersion: 'v1', kind: 'Owner' });
  const ref = (name: string) => [
    { apiVersion: 'v1', kind: 'Owner', name, uid: name, controller: true },
  ];
  const out = collect((q) =>
    h.handle(
      'update',
      obj({ ownerReferences: ref('new') }),
      obj({ ownerReferences: ref('old') }),
      q,
    ),
  );
  assert.deepEqual(out, ['ns/new', 'ns/old']);
});

test('EnqueueRequestsFromMapFunc enqueues what the map function returns', () => {
  const h = new EnqueueRequestsFromMapFunc((o) => [
    { namespace: 'x', name: o.metadata.name! },
    { namespace: 'y', name: 'z' },
  ]);
  assert.deepEqual(
    collect((q) => h.handle('create', obj({}), undefined, q)),
    ['x/a', 'y/z'],
  );
});
