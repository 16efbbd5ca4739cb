import { readFileSync } from 'node:fs';
import { Analyzer } from './src/analysis/analyzer';
(async () => {
  const a = await Analyzer.create();
  const text = readFileSync('test/analysis/fixtures/kubebuilder_good_controller.go', 'utf8');
  const f = a.parseGo('x.go', text);
  const bench = (k: string, fn: () => number) => { for (let i = 0; i < 50; i++) fn(); const s = performance.now(); let n = 0; for (let i = 0; i < 200; i++) n = fn(); console.log(k.padEnd(30), ((performance.now() - s) / 200).toFixed(3), 'ms', n); };
  bench('parse', () => { a.parseGo('x.go', text).tree.delete(); return 0; });
  bench('cursor walk 3 ops', () => { const c = f.tree.walk(); let n = 0; let ok = true; while (ok) { n++; if (c.gotoFirstChild()) continue; while (!c.gotoNextSibling()) { if (!c.gotoParent()) { ok = false; break; } } } c.delete(); return n; });
  bench('cursor walk + type/idx/field', () => { const c = f.tree.walk(); let n = 0; let ok = true; while (ok) { n++; c.nodeType; c.startIndex; c.endIndex; c.currentFieldName; c.nodeIsNamed; if (c.gotoFirstChild()) continue; while (!c.gotoNextSibling()) { if (!c.gotoParent()) { ok = false; break; } } } c.delete(); return n; });
  bench('cursor walk + typeId/fieldId', () => { const c = f.tree.walk(); let n = 0; let ok = true; while (ok) { n++; c.nodeTypeId; c.startIndex; c.endIndex; c.currentFieldId; if (c.gotoFirstChild()) continue; while (!c.gotoNextSibling()) { if (!c.gotoParent()) { ok = false; break; } } } c.delete(); return n; });
  bench('descendantsOfType call_expression', () => f.tree.rootNode.descendantsOfType('call_expression').length);
  bench('rootNode.children recursive', () => { let n = 0; const go = (x: any) => { n++; for (const c of x.children) go(c); }; go(f.tree.rootNode); return n; });
})();
(async () => {
  await new Promise((r) => setTimeout(r, 3000));
  const TS = require('web-tree-sitter');
  const a = await Analyzer.create();
  const text = readFileSync('test/analysis/fixtures/kubebuilder_good_controller.go', 'utf8');
  const f = a.parseGo('x.go', text);
  const lang = f.tree.language;
  const q = new TS.Query(lang, '(_) @n');
  const q2 = new TS.Query(lang, '[(call_expression) (assignment_statement) (short_var_declaration) (return_statement) (if_statement)] @n');
  const bench = (k: string, fn: () => number) => { for (let i = 0; i < 50; i++) fn(); const s = performance.now(); let n = 0; for (let i = 0; i < 200; i++) n = fn(); console.log(k.padEnd(30), ((performance.now() - s) / 200).toFixed(3), 'ms', n); };
  bench('query all named', () => q.captures(f.tree.rootNode).length);
  bench('query all + type/idx', () => { const cs = q.captures(f.tree.rootNode); let n = 0; for (const c of cs) { n += c.node.startIndex + c.node.endIndex; c.node.type; } return cs.length; });
  bench('query selective', () => q2.captures(f.tree.rootNode).length);
})();
