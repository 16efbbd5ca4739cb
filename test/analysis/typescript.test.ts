import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeTypeScript } from '../../src/analysis/ts/analyze';

/** A reconciler module whose reconcile body is `body`; `extra` adds module-level code. */
function mod(body: string, extra = ''): string {
  return `import { isNotFound } from 'reconcile-studio';
${extra}
export default {
  for: { apiVersion: 'example.com/v1', kind: 'Widget' },
  async reconcile(ctx, req) {
    let w;
    try {
      w = await ctx.client.get({ apiVersion: 'example.com/v1', kind: 'Widget' }, req);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
${body}
    return {};
  },
};
`;
}

const rules = (text: string): string[] =>
  analyzeTypeScript('w.reconciler.ts', text).map((f) => f.rule);

describe('TypeScript reconcilers', () => {
  it('a clean module yields no findings', () => {
    assert.deepEqual(rules(mod('    await ctx.client.status().update(w);')), []);
  });

  it('status-error-ignored flags a status update that is not awaited', () => {
    assert.deepEqual(rules(mod('    ctx.client.status().update(w);')), ['status-error-ignored']);
  });
  it('status-error-ignored offers to await a bare status write', () => {
    const text = mod('    ctx.client.status().update(w);');
    const [f] = analyzeTypeScript('w.reconciler.ts', text);
    assert.equal(f.fixes[0].title, 'Await the status write');
    const { line, character } = f.fixes[0].edits[0].range.start;
    const lines = text.split('\n');
    lines[line] =
      lines[line].slice(0, character) + f.fixes[0].edits[0].newText + lines[line].slice(character);
    assert.deepEqual(rules(lines.join('\n')), []);
  });
  it('status-error-ignored flags `.catch(() => undefined)`', () => {
    assert.deepEqual(
      rules(mod('    await ctx.client.status().patch(w, {}).catch(() => undefined);')),
      ['status-error-ignored'],
    );
  });
  it('status-error-ignored flags an empty catch around the write', () => {
    assert.deepEqual(
      rules(mod('    try {\n      await ctx.client.status().update(w);\n    } catch {}')),
      ['status-error-ignored'],
    );
  });
  it('status-error-ignored accepts a returned promise and a rethrowing catch', () => {
    assert.deepEqual(
      rules(mod('    await ctx.client.status().update(w).catch((e) => { throw e; });')),
      [],
    );
  });
  it('follows a destructured client', () => {
    assert.deepEqual(
      rules(mod('    const { client } = ctx;\n    void client.status().update(w);')),
      ['status-error-ignored'],
    );
  });

  it('unscoped-list flags a list without namespace or selector', () => {
    assert.deepEqual(rules(mod("    await ctx.client.list({ apiVersion: 'v1', kind: 'Pod' });")), [
      'unscoped-list',
    ]);
  });
  it('unscoped-list accepts a list scoped by namespace', () => {
    assert.deepEqual(
      rules(
        mod(
          "    await ctx.client.list({ apiVersion: 'v1', kind: 'Pod' }, { namespace: req.namespace });",
        ),
      ),
      [],
    );
  });

  it('result-with-error flags a Result returned from finally', () => {
    const body =
      '    try {\n      await ctx.client.update(w);\n    } finally {\n      return { requeueAfter: 1000 };\n    }';
    assert.deepEqual(rules(mod(body)), ['result-with-error']);
  });
  it('result-with-error accepts a Result returned from catch', () => {
    const body =
      '    try {\n      await ctx.client.create(w);\n    } catch {\n      return { requeueAfter: 1000 };\n    }';
    assert.deepEqual(rules(mod(body)), []);
  });

  it('blocking-sleep flags awaiting a setTimeout promise', () => {
    assert.deepEqual(rules(mod('    await new Promise((r) => setTimeout(r, 5000));')), [
      'blocking-sleep',
    ]);
  });
  it('blocking-sleep flags a same-file sleep helper', () => {
    assert.deepEqual(
      rules(
        mod(
          '    await sleep(5000);',
          'const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));',
        ),
      ),
      ['blocking-sleep'],
    );
  });
  it('blocking-sleep ignores an unrelated awaited call', () => {
    assert.deepEqual(rules(mod('    await fetchQuota(5000);')), []);
  });

  it('spec-write flags a spec change written back with update', () => {
    assert.deepEqual(rules(mod('    w.spec.replicas = 3;\n    await ctx.client.update(w);')), [
      'spec-write',
    ]);
  });
  it('spec-write accepts a status change', () => {
    assert.deepEqual(
      rules(mod('    w.status = { phase: "Ready" };\n    await ctx.client.status().update(w);')),
      [],
    );
  });

  it('ignores modules without a reconcile function', () => {
    assert.deepEqual(rules('export function helper(ctx) { ctx.client.status().update({}); }'), []);
  });
});
