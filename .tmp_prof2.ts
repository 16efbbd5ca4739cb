import { readFileSync } from 'node:fs';
import { createGoParser, parseGo } from './src/analysis/go/parser';
import { TreeCopier } from './src/analysis/go/tree';
import { GoPackage } from './src/analysis/go/package';
import { findReconcilers } from './src/analysis/go/reconcilers';
import { GO_RULES } from './src/analysis/go/analyze';
import { LineIndex } from './src/analysis/text';
(async () => {
  const p = await createGoParser();
  const seed = readFileSync('test/analysis/fixtures/seed_controller.go', 'utf8');
  const body = seed.slice(seed.indexOf('type MyReconciler')); let text = seed.slice(0, seed.indexOf('type MyReconciler'));
  for (let i = 0; text.split('\n').length < 1000; i++) text += body.replaceAll('MyReconciler', `R${i}Reconciler`).replaceAll('buildDesiredDeployment', `build${i}`);
  const tree = parseGo(p, text);
  const T: Record<string, number> = {};
  const t = (k: string, fn: () => void) => { const s = performance.now(); fn(); T[k] = (T[k] ?? 0) + performance.now() - s; };
  const N = 30;
  for (let i = 0; i < N; i++) {
    t('parse', () => parseGo(p, text).delete());
    let root: any; t('copy', () => { root = new TreeCopier().copy(tree, text); });
    const file = { path: 'x', text, tree, root, lines: new LineIndex(text) };
    let pkg!: GoPackage; let recs!: ReturnType<typeof findReconcilers>;
    t('pkg', () => { pkg = new GoPackage([file]); });
    t('recs', () => { recs = findReconcilers(pkg); });
    for (const r of GO_RULES) t(r.id, () => r.check({ pkg, reconcilers: recs, report: () => {} }));
  }
  for (const [k, v] of Object.entries(T)) console.log(k.padEnd(24), (v / N).toFixed(3));
})();
