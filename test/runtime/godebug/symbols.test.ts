import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { UnsupportedError, resolvePhaseSymbols } from '../../../src/runtime/godebug/symbols';
import { tempDir } from '../helpers';

/** A controller-runtime source tree with just the declarations the debugger looks for. */
function source(t: TestContext, files: Record<string, string>): string {
  const dir = tempDir(t, 'rs-crsrc-');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const CONTROLLER = `package controller

func (c *Controller[request]) reconcileHandler(ctx context.Context, req request, priority int) {
	log := c.LogConstructor(&req)
	reconcileID := uuid.NewUUID()

	log = log.WithValues("reconcileID", reconcileID)
	log.V(5).Info("Reconciling")
	result, err := c.Reconcile(ctx, req)

	// the switch below decides
	switch {
	}
}
`;
const CLIENT = ['Create', 'Update', 'Patch', 'Delete', 'DeleteAllOf', 'Apply']
  .map((m) => `func (c *client) ${m}(ctx context.Context) error {\n}\n`)
  .concat(
    ['Update', 'Patch', 'Apply'].map(
      (m) => `func (sc *subResourceClient) ${m}(ctx context.Context) error {\n}\n`,
    ),
  )
  .join('');
const READER = `func (c *CacheReader) Get(_ context.Context, key client.ObjectKey, out client.Object) error {
	storeKey := objectKeyToStoreKey(key)
	obj, exists, err := c.indexer.GetByKey(storeKey)
	if err != nil {
		return err
	}
}
func (c *CacheReader) List(_ context.Context, out client.ObjectList) error {
}
`;
const LIVE = (r: string) =>
  `func (c *${r}) Get(ctx context.Context) error {\n}\nfunc (c *${r}) List(ctx context.Context) error {\n}\n`;
const TREE = {
  'pkg/internal/controller/controller.go': CONTROLLER,
  'pkg/client/client.go': CLIENT,
  'pkg/client/typed_client.go': LIVE('typedClient'),
  'pkg/client/unstructured_client.go': LIVE('unstructuredClient'),
  'pkg/cache/internal/cache_reader.go': READER,
};

describe('phase breakpoints from the controller-runtime source', () => {
  it('finds lines by the statement after the one that yields the phase', (t) => {
    const dir = source(t, TREE);
    const s = resolvePhaseSymbols('v0.24.1', dir);
    const result = s.lines.find((l) => l.role === 'result')!;
    assert.equal(readFileSync(result.file, 'utf8').split('\n')[result.line - 1].trim(), 'switch {');
    const cache = s.lines.find((l) => l.role === 'cacheGet')!;
    assert.equal(
      readFileSync(cache.file, 'utf8').split('\n')[cache.line - 1].trim(),
      'if err != nil {',
    );
    // Dequeue is where reconcileHandler has made the reconcile's UUID, not the function's entry.
    const dequeue = s.lines.find((l) => l.role === 'dequeue')!;
    assert.equal(
      readFileSync(dequeue.file, 'utf8').split('\n')[dequeue.line - 1].trim(),
      'log = log.WithValues("reconcileID", reconcileID)',
    );
    assert.ok(!s.functions.some((f) => f.name.endsWith('reconcileHandler')));
    assert.ok(
      s.functions.some(
        (f) =>
          f.name === 'sigs.k8s.io/controller-runtime/pkg/client.(*subResourceClient).Patch' &&
          f.role === 'status',
      ),
    );
  });

  it('refuses a version older than the oldest supported one', (t) => {
    assert.throws(
      () => resolvePhaseSymbols('v0.14.6', source(t, TREE)),
      (e: Error) =>
        e instanceof UnsupportedError &&
        /v0\.14\.6 is not supported.*v0\.15 or newer/.test(e.message),
    );
  });

  it('refuses a source that lacks a phase function, naming it', (t) => {
    const tree = { ...TREE, 'pkg/cache/internal/cache_reader.go': 'package internal\n' };
    assert.throws(
      () => resolvePhaseSymbols('v0.99.0', source(t, tree)),
      (e: Error) => e instanceof UnsupportedError && /\(\*CacheReader\)\.List/.test(e.message),
    );
  });
});
