// Stops a reference control plane started by start.mjs in DIR (which then stops etcd, kube-apiserver
// and kube-controller-manager), waiting up to 30 s for it. Usage: node scripts/realapi/stop.mjs DIR
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? '.');
const pidFile = join(dir, 'pid');
if (!existsSync(pidFile)) {
  console.log(`no reference cluster runs from ${dir}`);
  process.exit(0);
}
const pid = Number(readFileSync(pidFile, 'utf8'));
const alive = () => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
if (alive()) process.kill(pid, 'SIGTERM');
for (let i = 0; i < 60 && alive(); i++) await new Promise((r) => setTimeout(r, 500));
if (alive()) {
  console.error(`process ${pid} still runs after 30 s`);
  process.exit(1);
}
