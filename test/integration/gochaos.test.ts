/**
 * The robustness report of the sample's real Go manager (`chaos --go`), built once and run against
 * a fresh served cluster per case on the real clock. With the sample's one small WebApp (blog, one
 * replica) the manager settles, so each case is judged against a steady baseline. The full sample
 * is left out on purpose: its quota fits shop or blog but not both, the manager hot-loops on the
 * one it starves and never settles, and which one wins is a race on the real clock, so its cases
 * cannot be asserted. Skipped where Go is missing.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FAULT_CLASSES } from '../../src/runtime/chaos';
import { goChaos } from '../../src/runtime/gochaos';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { ROOT } from './serve';

const SAMPLE = join(ROOT, 'samples', 'quota-operator');

describe('chaos --go on the sample operator', { timeout: 300_000 }, async () => {
  const goProblem = checkGoVersion(await goVersion());

  it(
    'rides out a write conflict and a quota refusal, and says the refusal was swallowed',
    { skip: goProblem },
    async () => {
      const report = await goChaos({
        moduleDir: SAMPLE,
        manifests: [
          join(SAMPLE, 'config/crd/bases'),
          join(SAMPLE, 'config/samples/apps_v1_webapp_blog.yaml'),
        ],
        durationMs: 15_000,
        // Pods Ready a second after they run: the manager updates the Deployment meanwhile, so
        // the quota class's refused update is sure to happen.
        podReadyDelayMs: 1000,
        classes: FAULT_CLASSES.filter((c) =>
          ['write-conflict', 'quota-exhausted'].includes(c.fault),
        ),
      });
      assert.equal(report.clock, 'real');
      // The baseline settled: the manager stopped writing before the duration ran out.
      assert.notEqual(report.baseline.steadyAtMs, null);
      assert.equal(report.baseline.objects, 2, 'the WebApp and the Deployment it owns');
      assert.ok(report.baseline.reconciles > 0 && report.baseline.apiCalls > 0);
      const [conflict, quota] = report.cases;
      assert.equal(conflict.fault, 'write-conflict');
      // The 409 on its Deployment update is returned as an error and retried: same final state.
      assert.equal(conflict.converged, true, conflict.diff);
      assert.equal(conflict.diff, '');
      assert.notEqual(conflict.timeToConvergeMs, null);
      assert.ok(!conflict.findings.includes('errors-swallowed'), conflict.findings.join());
      // The 403 on the update is turned into a QuotaExceeded status and a 30 s requeue with no
      // error: the report names it; later Deployment events bring the WebApp back to Running.
      assert.equal(quota.fault, 'quota-exhausted');
      assert.equal(quota.converged, true, quota.diff);
      assert.ok(quota.findings.includes('errors-swallowed'), quota.findings.join());
    },
  );
});
