// `npm run bench`: runs every bench/*.bench.ts in turn. Each prints its figures as ratios against a
// floor measured in the same process, plus absolute numbers for context. Nothing here asserts.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const files = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts') && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort();
await generate();
let failed = 0;
for (const f of files) {
  console.log(`\n== ${f}`);
  const res = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join('bench', f)], {
    stdio: 'inherit',
    cwd: root,
  });
  if (res.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
