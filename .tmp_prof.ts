import { readFileSync } from 'node:fs';
import { Analyzer } from './src/analysis/analyzer';
import { GoPackage } from './src/analysis/go/package';
import { findReconcilers } from './src/analysis/go/reconcilers';
import { GO_RULES } from './src/analysis/go/analyze';
(async () => {
  const a = await Analyzer.create();
  const text = readFileSync('test/analysis/fixtures/kubebuilder_good_controller.go', 'utf8');
  const f = a.parseGo('x.go', text);
  const T: Record<string, number> = {};
  const t = (k: string, fn: () => void) => { const s = performance.now(); fn(); T[k] = (T[k] ?? 0) + performance.now() - s; };
  for (let i = 0; i < 200; i++) {
    let pkg!: GoPackage; let recs!: ReturnType<typeof findReconcilers>;
    t('pkg', () => { pkg = new GoPackage([f]); });
    t('recs', () => { recs = findReconcilers(pkg); });
    for (const r of GO_RULES) t(r.id, () => r.check({ pkg, reconcilers: recs, report: () => {} }));
  }
  // cursor walk
  t('cursorwalk', () => { for (let i = 0; i < 200; i++) { const c = f.tree.walk(); let n = 0; let ok = true; while (ok) { n++; if (c.gotoFirstChild()) continue; while (!c.gotoNextSibling()) { if (!c.gotoParent()) { ok = false; break; } } } c.delete(); } });
  t('parse', () => { for (let i = 0; i < 200; i++) a.parseGo('x.go', text).tree.delete(); });
  for (const [k, v] of Object.entries(T)) console.log(k.padEnd(24), (v / 200).toFixed(3));
})();
