// Starts the reference control plane (building it first when the release's binaries are not cached)
// and keeps it up until interrupted; prints the kubeconfig to use. Everything it started stops with
// it (Ctrl-C, or `node scripts/realapi/stop.mjs DIR`).
// Usage: node scripts/realapi/start.mjs [DIR]   (default: a new temporary folder)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildRealapi } from './build.mjs';
import { startControlPlane } from './controlplane.mjs';

const dir = process.argv[2] ? resolve(process.argv[2]) : mkdtempSync(join(tmpdir(), 'realapi-'));
const binDir = buildRealapi();
const cp = await startControlPlane({ binDir, dir });
writeFileSync(join(dir, 'pid'), `${process.pid}\n`);
console.log(`Reference cluster at ${cp.server} (logs in ${dir})`);
console.log(`Try: kubectl --kubeconfig ${cp.kubeconfig} get namespaces`);
await new Promise((done) => {
  process.once('SIGINT', done);
  process.once('SIGTERM', done);
});
await cp.stop();
rmSync(join(dir, 'pid'), { force: true });
