import { readFileSync } from 'node:fs';
import { Analyzer } from './src/analysis/analyzer';
import { Workspace } from './src/analysis/workspace';
import { analyzeGoPackage } from './src/analysis/go/analyze';
(async () => {
  const a = await Analyzer.create();
  const seed = readFileSync('test/analysis/fixtures/seed_controller.go', 'utf8');
  const body = seed.slice(seed.indexOf('type MyReconciler')); let text = seed.slice(0, seed.indexOf('type MyReconciler'));
  for (let i = 0; text.split('\n').length < 1000; i++) text += body.replaceAll('MyReconciler', `R${i}Reconciler`).replaceAll('buildDesiredDeployment', `build${i}`);
  const ws = new Workspace(a); const path = '/v/big.go'; ws.openDocument(path, 'go', 1, text); ws.analyze(path, {});
  const line = text.split('\n').findIndex((l) => l.includes('actualReplicas :='));
  const T: Record<string, number> = {}; const t = (k: string, fn: () => any) => { const s = performance.now(); const r = fn(); T[k] = (T[k] ?? 0) + performance.now() - s; return r; };
  let v = 2; let tog = false; const N = 100;
  for (let i = 0; i < N; i++) {
    tog = !tog;
    const range = tog ? { start: { line, character: 1 }, end: { line, character: 1 } } : { start: { line, character: 1 }, end: { line, character: 2 } };
    t('change', () => ws.changeDocument(path, v++, [{ range, text: tog ? 'x' : '' }]));
    const f = t('parse+copy', () => ws.goFile(path));
    t('rules', () => analyzeGoPackage([f]));
    t('analyze(total, cached)', () => ws.analyze(path, {}));
  }
  for (const [k, x] of Object.entries(T)) console.log(k.padEnd(24), (x / N).toFixed(3));
})();
