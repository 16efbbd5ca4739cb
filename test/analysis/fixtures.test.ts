import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TypeIndex } from '../../src/analysis/analyzer';
import { analyzer, controller, findings, fixture, rulesOf } from './helpers';

describe('fixtures', () => {
  it("the seed's controller yields its ignored status error and its Update of an unfetched Deployment", async () => {
    const fs = await findings(fixture('seed_controller.go'), 'seed_controller.go');
    assert.deepEqual(
      fs.map((f) => [f.rule, f.range.start.line + 1]),
      [
        ['update-unfetched', 44],
        ['status-error-ignored', 48],
      ],
    );
  });

  it('a kubebuilder-generated controller yields no findings', async () => {
    const a = await analyzer();
    const files = ['kubebuilder_good_controller.go', 'memcached_types.go'].map((n) =>
      a.parseGo(n, fixture(n)),
    );
    assert.deepEqual(a.analyzeGo(files), []);
  });

  it('a kubebuilder scaffold with an empty Reconcile yields no findings', async () => {
    assert.deepEqual(await rulesOf(fixture('scaffold_controller.go')), []);
  });

  it('API types from another package inform observed-generation', async () => {
    const a = await analyzer();
    const types = new TypeIndex();
    const typesFile = a.parseGo('memcached_types.go', fixture('memcached_types.go'));
    types.addFile(typesFile.root);
    const text = fixture('kubebuilder_good_controller.go').replace(
      '\tmemcached.Status.ObservedGeneration = memcached.Generation\n',
      '',
    );
    const file = a.parseGo('c.go', text);
    assert.deepEqual(
      a.analyzeGo([file], { types }).map((f) => f.rule),
      ['observed-generation', 'observed-generation'],
    );
  });

  it('reports columns in UTF-16 units after non-ASCII text on the line', async () => {
    const text = controller('/* ¤€😀 */ _ = r.Status().Update(ctx, &app)');
    const [f] = await findings(text);
    const line = text.split('\n')[f.range.start.line];
    assert.equal(
      line.slice(f.range.start.character, f.range.end.character),
      'r.Status().Update(ctx, &app)',
    );
  });

  it('survives the seed as published, with its mangled `¤tDeploy`', async () => {
    const text = fixture('seed_controller.go').replace('&currentDeploy)', '¤tDeploy)');
    const fs = await findings(text);
    assert.ok(fs.some((f) => f.rule === 'status-error-ignored'));
  });
});
