import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadScenarios } from './scenario';

describe('matrix scenarios', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-scenarios-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'm.yaml'),
    `kinds:
  - name: apps/deployments
    collection: /apis/apps/v1/namespaces/{{ns}}/deployments
    settled: { until: status.observedGeneration, equals: 1 }
    manifest: { apiVersion: apps/v1, kind: Deployment }
templates:
  - name: create
    steps:
      - { POST: '{{collection}}', body: $manifest }
  - name: apply-create
    steps:
      - { PATCH: '{{object}}?fieldManager=a', type: apply, body: $manifest }
      - { PATCH: '{{object}}?fieldManager=b', type: apply, body: { metadata: { labels: { x: y } } } }
`,
  );
  const byName = new Map(loadScenarios(dir).map((s) => [s.name, s]));

  it('waits for what a controller settles after a create, by POST or by server-side apply', () => {
    for (const name of ['apps/deployments/create', 'apps/deployments/apply-create']) {
      const steps = byName.get(name)!.steps;
      assert.deepEqual(
        { method: steps[1]?.method, path: steps[1]?.path, until: steps[1]?.until },
        {
          method: 'GET',
          path: '/apis/apps/v1/namespaces/{{ns}}/deployments/x-{{ns}}',
          until: 'status.observedGeneration',
        },
        name,
      );
      assert.equal(steps[1]?.compare, false);
    }
    assert.equal(
      byName.get('apps/deployments/apply-create')!.steps.length,
      3,
      'an apply of another body is not a create',
    );
  });
});
