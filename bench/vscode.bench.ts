/**
 * The editor layer's figures: how long the Custom Resources view takes to build its first render
 * with 1,000 and 10,000 objects (model work per node VS Code asks for), against a floor of simply
 * sorting the same objects by name; and what loading the extension bundle costs (activation).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../src/cluster/apimachinery/types';
import { ResourceTreeModel, type ResourceNode } from '../src/vscode/model/resourcetree';

const WEBAPP = {
  group: 'apps.example.com',
  version: 'v1',
  kind: 'WebApp',
  plural: 'webapps',
  namespaced: true,
};

function objects(n: number): KubeObject[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: 'apps.example.com/v1',
    kind: 'WebApp',
    metadata: { name: `app-${i}`, namespace: `ns-${i % 20}`, uid: `u${i}`, generation: 2 },
    spec: { replicas: 3 },
    status: {
      phase: i % 7 ? 'Running' : 'QuotaExceeded',
      readyReplicas: i % 4,
      observedGeneration: 1,
    },
  }));
}

function time(fn: () => void, reps = 5): number {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    fn();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

for (const n of [1_000, 10_000]) {
  const objs = objects(n);
  let model = new ResourceTreeModel();
  const ingest = time(() => {
    model = new ResourceTreeModel();
    model.setKinds([WEBAPP]);
    for (const o of objs) model.apply({ type: 'ADDED', object: o });
  });
  // What VS Code asks for on first render with every namespace expanded.
  const walk = (node?: ResourceNode): number =>
    model.children(node).reduce((k, c) => k + 1 + (c.type === 'object' ? 0 : walk(c)), 0);
  const render =
    time(() => {
      const m = model;
      model = new ResourceTreeModel();
      model.setKinds([WEBAPP]);
      for (const o of objs) model.apply({ type: 'ADDED', object: o });
      void m;
      walk();
    }) - ingest;
  const floor = time(() => {
    [...objs].sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
  });
  console.log(
    `Custom Resources, ${n.toLocaleString()} objects: ingest ${ingest.toFixed(1)} ms, first render ${render.toFixed(1)} ms ` +
      `(${(render / floor).toFixed(1)}× the floor: sorting them by name, ${floor.toFixed(1)} ms)`,
  );
}

// Activation cost: loading dist/extension.js (with a stub for the vscode module) vs loading an empty module.
const root = join(__dirname, '..');
const bundle = join(root, 'dist', 'extension.js');
if (existsSync(bundle)) {
  const probe = (file: string) =>
    Number(
      execFileSync(process.execPath, [
        '-e',
        `const M=require('module');const r=M._resolveFilename;M._resolveFilename=function(q,...a){return q==='vscode'?'vscode':r.call(this,q,...a)};` +
          `require.cache.vscode={id:'vscode',filename:'vscode',loaded:true,exports:new Proxy({},{get:()=>function(){}})};` +
          `const t=performance.now();require(${JSON.stringify(file)});process.stdout.write(String(performance.now()-t))`,
      ]).toString(),
    );
  const runs = (f: string) => Math.min(...Array.from({ length: 5 }, () => probe(f)));
  const ext = runs(bundle);
  const empty = runs(
    join(root, 'scripts', 'codeserver.d.mts').replace(/codeserver\.d\.mts$/, 'empty.cjs'),
  );
  console.log(
    `Loading dist/extension.js: ${ext.toFixed(1)} ms (floor: an empty module, ${empty.toFixed(2)} ms)`,
  );
} else {
  console.log('dist/extension.js not built: run npm run build for the activation figure');
}
