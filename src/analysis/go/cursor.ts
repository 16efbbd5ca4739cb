/**
 * A tree cursor for copying a whole tree (tree.ts), driven through web-tree-sitter's wasm binding
 * directly. The binding keeps the cursor it works on in one transfer buffer in wasm memory: every
 * call reads the cursor from there and the goto calls write the moved cursor back. web-tree-sitter's
 * TreeCursor copies its four words into that buffer before each call and out after each move,
 * through a DataView, which was about half of the time spent copying a tree. Here the cursor simply
 * stays in the buffer for the whole walk, so each step is one call into wasm and nothing else.
 *
 * That holds only while no other tree-sitter call runs in between (any of them may overwrite the
 * buffer), so the cursor exists only inside `walkTree`'s synchronous callback. When the binding's
 * entry points are not where we expect them (another web-tree-sitter version, or the module was
 * initialized by someone else), `walkTree` hands out web-tree-sitter's own TreeCursor instead:
 * slower, same answers (test/analysis/cursor.test.ts compares the two).
 */
import type { Tree, TreeCursor } from 'web-tree-sitter';
import { wasmModule } from './parser';

/** What a tree copy reads from a cursor, in TreeCursor's own names, so either one serves. */
export type WalkCursor = Pick<
  TreeCursor,
  | 'nodeTypeId'
  | 'currentFieldId'
  | 'startIndex'
  | 'endIndex'
  | 'gotoFirstChild'
  | 'gotoNextSibling'
  | 'gotoParent'
>;

/**
 * The binding's entry points we call (tree-sitter's lib/binding_web/lib/tree-sitter.c). Each takes
 * the tree's pointer; the cursor (and, for root_node/cursor_new, the node) is in the buffer.
 */
const ENTRY_POINTS = [
  '_ts_tree_root_node_wasm',
  '_ts_tree_cursor_new_wasm',
  '_ts_tree_cursor_delete_wasm',
  '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm',
  '_ts_tree_cursor_current_field_id_wasm',
  '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm',
] as const;

type Binding = Record<(typeof ENTRY_POINTS)[number], (tree: number) => number>;

function binding(): Binding | null {
  const m = wasmModule();
  return ENTRY_POINTS.every((name) => typeof m[name] === 'function')
    ? (m as unknown as Binding)
    : null;
}

/** The tree's pointer in wasm memory: web-tree-sitter keeps it as the Tree's `[0]`. */
function treePointer(tree: Tree): number | null {
  const ptr = (tree as unknown as { 0?: unknown })[0];
  return typeof ptr === 'number' && ptr > 0 ? ptr : null;
}

/** A cursor living in the binding's transfer buffer; see the file comment for why and when. */
class BufferCursor implements WalkCursor {
  constructor(
    private readonly b: Binding,
    private readonly tree: number,
  ) {}
  get nodeTypeId(): number {
    return this.b._ts_tree_cursor_current_node_type_id_wasm(this.tree);
  }
  get currentFieldId(): number {
    return this.b._ts_tree_cursor_current_field_id_wasm(this.tree);
  }
  get startIndex(): number {
    return this.b._ts_tree_cursor_start_index_wasm(this.tree);
  }
  get endIndex(): number {
    return this.b._ts_tree_cursor_end_index_wasm(this.tree);
  }
  gotoFirstChild(): boolean {
    return this.b._ts_tree_cursor_goto_first_child_wasm(this.tree) !== 0;
  }
  gotoNextSibling(): boolean {
    return this.b._ts_tree_cursor_goto_next_sibling_wasm(this.tree) !== 0;
  }
  gotoParent(): boolean {
    return this.b._ts_tree_cursor_goto_parent_wasm(this.tree) !== 0;
  }
}

/** Does `walkTree` use the transfer-buffer cursor (rather than web-tree-sitter's TreeCursor)? */
export function fastWalkAvailable(tree: Tree): boolean {
  return binding() !== null && treePointer(tree) !== null;
}

/**
 * Runs `fn` with a cursor on the tree's root. `fn` must make no other tree-sitter call (see the
 * file comment). `slow` forces web-tree-sitter's TreeCursor, for comparing the two.
 */
export function walkTree<T>(tree: Tree, fn: (cursor: WalkCursor) => T, slow = false): T {
  const b = slow ? null : binding();
  const ptr = treePointer(tree);
  if (!b || ptr === null) {
    const cursor = tree.walk();
    try {
      return fn(cursor);
    } finally {
      cursor.delete();
    }
  }
  b._ts_tree_root_node_wasm(ptr);
  b._ts_tree_cursor_new_wasm(ptr);
  try {
    return fn(new BufferCursor(b, ptr));
  } finally {
    // The buffer still holds our cursor: fn made no other tree-sitter call.
    b._ts_tree_cursor_delete_wasm(ptr);
  }
}
