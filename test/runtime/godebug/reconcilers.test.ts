import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findReconcileSymbols } from '../../../src/runtime/godebug/reconcilers';
import { ROOT } from '../helpers';

describe("Go debugger: the user's Reconcile methods", () => {
  it("finds the sample's WebAppReconciler.Reconcile as Delve names it", async () => {
    const found = await findReconcileSymbols(join(ROOT, 'samples', 'quota-operator'));
    assert.deepEqual(
      found.map((s) => s.name),
      ['example.com/quota-operator/internal/controller.(*WebAppReconciler).Reconcile'],
    );
    assert.match(found[0].file, /webapp_controller\.go$/);
  });

  it('finds none in a Go module that is not an operator', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-notop-'));
    try {
      writeFileSync(join(dir, 'go.mod'), 'module example.com/tool\n\ngo 1.25\n');
      writeFileSync(join(dir, 'main.go'), 'package main\n\nfunc main() {}\n');
      assert.deepEqual(await findReconcileSymbols(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
