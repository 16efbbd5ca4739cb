/**
 * A plain-JavaScript copy of the tree-sitter tree. Every property read on a web-tree-sitter Node
 * crosses into WebAssembly, and the rules read a lot of them; copying the tree once with a cursor
 * makes the rules pure JS. Only named nodes are kept, plus anonymous ones that carry a field
 * (operators such as the `&` of `&x`).
 *
 * Top-level declarations are cached by their text: after an edit, tree-sitter re-parses
 * incrementally and we copy again only the declarations whose text changed. Nodes keep offsets
 * relative to their declaration, so a reused declaration simply gets a new base offset.
 */
import type { Language, Tree } from 'web-tree-sitter';
import { walkTree, type WalkCursor } from './cursor';

let nextId = 1;

/** Shared by all nodes of one top-level declaration (or of the file node itself). */
interface Segment {
  base: number;
  text: string;
  /** node type → nodes of that type in pre-order, for descendantsOfType without walking */
  index: Map<string, SNode[]>;
  /** nodes in pre-order; SNode.order indexes into it */
  count: number;
}

export class SNode {
  readonly id = nextId++;
  parent: SNode | null = null;
  /** pre-order position in the segment, and the last position inside this subtree */
  order = 0;
  lastDescendant = 0;
  readonly children: SNode[] = [];
  private namedCache: SNode[] | null = null;

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly fieldName: string | null,
    private readonly relStart: number,
    private readonly relEnd: number,
    readonly segment: Segment,
  ) {}

  get startIndex(): number {
    return this.segment.base + this.relStart;
  }

  get endIndex(): number {
    return this.segment.base + this.relEnd;
  }

  get text(): string {
    return this.segment.text.slice(this.relStart, this.relEnd);
  }

  get namedChildren(): SNode[] {
    this.namedCache ??= this.children.filter((c) => c.isNamed);
    return this.namedCache;
  }

  child(i: number): SNode | null {
    return this.children[i] ?? null;
  }

  childForFieldName(name: string): SNode | null {
    for (const c of this.children) if (c.fieldName === name) return c;
    return null;
  }

  /**
   * Descendants of the given types in document order (not including this node). Answered from
   * the segment's per-type index: nodes whose pre-order position falls inside this subtree.
   * (The file node spans segments, so it walks its declarations instead.)
   */
  descendantsOfType(types: string | string[]): SNode[] {
    const list = typeof types === 'string' ? [types] : types;
    if (this.segment.index.size === 0) {
      return this.children.flatMap((c) => [
        ...(list.includes(c.type) ? [c] : []),
        ...c.descendantsOfType(list),
      ]);
    }
    const out: SNode[] = [];
    for (const t of list) {
      const nodes = this.segment.index.get(t);
      if (!nodes) continue;
      // First node after this one in pre-order, by binary search.
      let lo = 0;
      let hi = nodes.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (nodes[mid].order <= this.order) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < nodes.length && nodes[i].order <= this.lastDescendant; i++)
        out.push(nodes[i]);
    }
    if (list.length > 1) out.sort((a, b) => a.order - b.order);
    return out;
  }

  /** The smallest descendant (or this node) whose range contains `offset`. */
  descendantForIndex(offset: number): SNode {
    const next = this.children.find((c) => c.startIndex <= offset && offset < c.endIndex);
    return next ? next.descendantForIndex(offset) : this;
  }
}

/**
 * Per-language lookups, so the copy reads numbers (cheap) rather than strings from wasm. Filled
 * up front: during a walk nothing else may call into tree-sitter (see cursor.ts).
 */
class Symbols {
  private readonly types: string[] = [];
  private readonly named: boolean[] = [];
  private readonly fields: (string | null)[] = [];
  constructor(language: Language) {
    for (let id = 0; id < language.nodeTypeCount; id++) {
      this.types.push(language.types[id] ?? '');
      this.named.push(language.nodeTypeIsNamed(id));
    }
    for (let id = 0; id < language.fields.length; id++)
      this.fields.push(id > 0 ? (language.fields[id] ?? null) : null);
  }
  type(id: number): string {
    return this.types[id] ?? '';
  }
  isNamed(id: number): boolean {
    return this.named[id] ?? false;
  }
  field(id: number): string | null {
    return this.fields[id] ?? null;
  }
}

const symbolTables = new WeakMap<Language, Symbols>();

/** Named node types that never have children: no need to ask the cursor (each ask crosses into wasm). */
const LEAVES = new Set([
  'identifier',
  'field_identifier',
  'type_identifier',
  'package_identifier',
  'label_name',
  'int_literal',
  'float_literal',
  'imaginary_literal',
  'nil',
  'true',
  'false',
  'iota',
  'comment',
]);

/** Anonymous tokens worth keeping: unary operators (`&x`, `*p`, `<-ch`), read through `operator`. */
const KEPT_TOKENS = new Set(['&', '*', '<-']);

/** Copies the subtree at the cursor (which must be on a kept node) into `segment`. */
function copy(
  cursor: WalkCursor,
  sym: Symbols,
  segment: Segment,
  typeId: number,
  field: string | null,
): SNode {
  const type = sym.type(typeId);
  const node = new SNode(
    type,
    sym.isNamed(typeId),
    field,
    cursor.startIndex - segment.base,
    cursor.endIndex - segment.base,
    segment,
  );
  node.order = segment.count++;
  let bucket = segment.index.get(type);
  if (!bucket) segment.index.set(type, (bucket = []));
  bucket.push(node);
  if (node.isNamed && !LEAVES.has(type) && cursor.gotoFirstChild()) {
    do {
      const childType = cursor.nodeTypeId;
      if (!sym.isNamed(childType) && !KEPT_TOKENS.has(sym.type(childType))) continue;
      const childField = sym.field(cursor.currentFieldId);
      if (!sym.isNamed(childType) && childField === null) continue;
      const child = copy(cursor, sym, segment, childType, childField);
      child.parent = node;
      node.children.push(child);
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  }
  node.lastDescendant = segment.count - 1;
  return node;
}

/** Copies trees of one document, reusing unchanged top-level declarations from the last copy. */
export class TreeCopier {
  private cache = new Map<string, SNode>();

  copy(tree: Tree, text: string): SNode {
    const language = tree.language;
    const sym = symbolTables.get(language) ?? new Symbols(language);
    symbolTables.set(language, sym);
    return walkTree(tree, (cursor) => {
      const fileSegment: Segment = { base: 0, text, index: new Map(), count: 0 };
      const root = new SNode(sym.type(cursor.nodeTypeId), true, null, 0, text.length, fileSegment);
      const next = new Map<string, SNode>();
      if (cursor.gotoFirstChild()) {
        do {
          const typeId = cursor.nodeTypeId;
          const field = sym.field(cursor.currentFieldId);
          if (!sym.isNamed(typeId) && field === null) continue;
          const start = cursor.startIndex;
          const end = cursor.endIndex;
          const key = `${typeId}:${text.slice(start, end)}`;
          let decl = this.cache.get(key);
          if (decl && !next.has(key)) {
            decl.segment.base = start;
          } else {
            decl = copy(
              cursor,
              sym,
              { base: start, text: text.slice(start, end), index: new Map(), count: 0 },
              typeId,
              field,
            );
          }
          if (!next.has(key)) next.set(key, decl);
          decl.parent = root;
          root.children.push(decl);
        } while (cursor.gotoNextSibling());
      }
      this.cache = next;
      return root;
    });
  }
}
