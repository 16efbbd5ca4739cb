import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Tree } from 'web-tree-sitter';
import { fastWalkAvailable, walkTree, type WalkCursor } from '../../src/analysis/go/cursor';
import { createGoParser, parseGo } from '../../src/analysis/go/parser';
import { fixture, FIXTURES } from './helpers';

/** Every node in pre-order as `type field start-end`, read through the cursor's own moves. */
function record(cursor: WalkCursor): string[] {
  const out: string[] = [];
  const visit = (depth: number): void => {
    out.push(
      `${depth} ${cursor.nodeTypeId} ${cursor.currentFieldId} ${cursor.startIndex}-${cursor.endIndex}`,
    );
    if (cursor.gotoFirstChild()) {
      do visit(depth + 1);
      while (cursor.gotoNextSibling());
      assert.ok(cursor.gotoParent());
    }
  };
  visit(0);
  return out;
}

const INPUTS: Record<string, string> = {
  ...Object.fromEntries(
    readdirSync(FIXTURES)
      .filter((n) => n.endsWith('.go'))
      .map((n) => [n, fixture(n)]),
  ),
  empty: '',
  'syntax errors': 'package x\nfunc (r *R) Reconcile( {\n\tif x := ; {\n}\n',
  'non-ASCII': 'package x\n// ¤€😀 héllo\nfunc f() string { return "日本😀" + `raw ✓` }\n',
};

describe('tree cursor over the wasm binding', () => {
  it('is the one walkTree uses with the installed web-tree-sitter', async () => {
    const parser = await createGoParser();
    const tree = parseGo(parser, fixture('seed_controller.go'));
    assert.ok(fastWalkAvailable(tree), 'the binding entry points or the tree pointer moved');
    tree.delete();
  });

  for (const [name, text] of Object.entries(INPUTS)) {
    it(`reads the same nodes, fields and offsets as web-tree-sitter's TreeCursor: ${name}`, async () => {
      const parser = await createGoParser();
      const tree: Tree = parseGo(parser, text);
      const fast = walkTree(tree, record);
      const slow = walkTree(tree, record, true);
      assert.ok(fast.length > 0);
      assert.deepEqual(fast, slow);
      tree.delete();
    });
  }

  it('leaves tree-sitter usable after a walk that throws', async () => {
    const parser = await createGoParser();
    const text = fixture('kubebuilder_good_controller.go');
    const tree = parseGo(parser, text);
    assert.throws(
      () =>
        walkTree(tree, (c) => {
          c.gotoFirstChild();
          throw new Error('stop');
        }),
      /stop/,
    );
    const again = parseGo(parser, text);
    assert.equal(again.rootNode.toString(), tree.rootNode.toString());
    assert.deepEqual(walkTree(tree, record), walkTree(again, record, true));
    again.delete();
    tree.delete();
  });
});
