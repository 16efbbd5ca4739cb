import { env, WEBAPP, webapp } from './test/runtime/helpers';
async function main() {
  const e = await env({ hotLoop: { threshold: 10 } });
  let n = 0;
  const ctrl = e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    n++;
    const app = await ctx.client.get(WEBAPP, req);
    app.spec = { ...(app.spec as object), replicas: n };
    await ctx.client.update(app);
    return {};
  });
  e.cluster.create(webapp('spin'));
  e.mgr.start();
  await e.clock.advance(1000);
  for (const t of ctrl.traces.slice(0, 4)) console.log(t.id, t.outcome, t.error?.message, JSON.stringify(t.triggers), t.phases.map(p => p.summary).join(' | '));
  console.log(n, ctrl.hotLoops);
  await e.close();
}
main();
