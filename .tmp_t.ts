import { readFileSync } from 'node:fs';
import { Analyzer } from './src/analysis/analyzer';
(async () => {
const a = await Analyzer.create();
const p = process.argv[2];
for (const f of a.analyzeFile(p, readFileSync(p, 'utf8'))) console.log(f.range.start.line+1, f.rule, f.message, JSON.stringify(f.fixes));
})();
