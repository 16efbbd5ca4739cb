/** The editor follows calls into other packages of the module, as `lint` does (go/module.ts). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Workspace } from '../../src/analysis/workspace';
import { analyzer, FIXTURES } from './helpers';

const MODULE = join(FIXTURES, 'shapes', 'status_dropped_by_module_helper');
const CONTROLLER = join(MODULE, 'internal', 'controller', 'shop_controller.go');

describe('workspace: helpers in other packages of the module', () => {
  it('reports the call of a helper that drops its status error, and forgets it once fixed', async () => {
    const ws = new Workspace(await analyzer());
    try {
      const text = readFileSync(CONTROLLER, 'utf8');
      ws.openDocument(CONTROLLER, 'go', 1, text);
      const lines = ws
        .analyze(CONTROLLER, { only: new Set(['status-error-ignored']) })
        .map((f) => f.range.start.line + 1);
      const want = text.split('\n').findIndex((l) => l.includes('// want status-error-ignored'));
      assert.deepEqual(lines, [want + 1]);

      // The helper's package, open and edited to return the error: the call is no longer flagged.
      const helper = join(MODULE, 'internal', 'common', 'status.go');
      const fixed = readFileSync(helper, 'utf8').replace(
        'func UpdateStatus(ctx context.Context, c client.Client, obj client.Object) {\n\tif err := c.Status().Update(ctx, obj); err != nil {\n\t\tlog.FromContext(ctx).Error(err, "updating status")\n\t}\n}',
        'func UpdateStatus(ctx context.Context, c client.Client, obj client.Object) {\n\t_ = log.FromContext(ctx)\n}',
      );
      ws.openDocument(helper, 'go', 1, fixed);
      assert.deepEqual(ws.analyze(CONTROLLER, { only: new Set(['status-error-ignored']) }), []);
    } finally {
      ws.dispose();
    }
  });
});
