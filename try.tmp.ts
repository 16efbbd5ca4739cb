import { Cluster } from './src/cluster/cluster';
import { VirtualClock } from './src/util/clock';
import { Manager } from './src/runtime/manager';
import { loadReconciler } from './src/runtime/loader';
import { parseAllDocuments } from 'yaml';
import { readFileSync, readdirSync } from 'node:fs';
async function main() {
const clock = new VirtualClock();
const cluster = new Cluster({ clock });
const files = ['crd/bases/apps.example.com_webapps.yaml','samples/resourcequota.yaml','samples/apps_v1_webapp_shop.yaml','samples/apps_v1_webapp_blog.yaml'];
for (const f of files) for (const d of parseAllDocuments(readFileSync('samples/quota-operator/config/'+f,'utf8'))) { const o = d.toJSON(); if (o) { cluster.create(o); await clock.advance(0);} }
const isolate = process.argv[2] === 'worker';
const rec = await loadReconciler('samples/quota-operator/reconcilers/webapp.reconciler.ts', { isolate });
console.log(rec.definition);
const mgr = new Manager({ api: cluster });
mgr.addReconciler(rec.definition, rec.reconcile);
mgr.start();
const t0 = Date.now();
await clock.advance(10 * 60_000);
console.log('wall', Date.now() - t0);
for (const t of mgr.traces()) console.log(t.id, t.start, t.key, t.outcome, t.error?.message ?? '', t.calls.map(c => `${c.verb} ${c.resource}${c.subresource?'/'+c.subresource:''} ${c.name} ${c.code}${c.noop?' noop':''}`).join(', '), '|', t.phases[0].summary);
console.log(mgr.metricsText().split('\n').filter(l => /^(controller_runtime_reconcile_total|workqueue_adds|workqueue_retries)/.test(l)).join('\n'));
const ev = cluster.list({apiVersion:'v1',kind:'Event'}, {});
for (const e of ev.items) console.log((e as any).reason, (e as any).involvedObject.kind, (e as any).involvedObject.name, (e as any).message, (e as any).count);
await mgr.stop(); await rec.dispose(); cluster.close();
}
main();
