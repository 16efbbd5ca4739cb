/**
 * `npm run test:differential`: the fake cluster judged by a real kube-apiserver and
 * kube-controller-manager of the pinned release. Every scenario runs against both clusters from
 * the same start (a fresh namespace of the same name on each); the answers, normalised only where
 * values must differ, are compared step by step. Prints each divergence with both answers and
 * `N scenarios, D divergences (allowlist: A entries)`; exits 1 when a divergence is not allowed.
 * Options: --filter TEXT (only scenarios whose name contains TEXT), --verbose (every difference),
 * --report FILE (the divergences as JSON, for comparing runs), --progress (each scenario's time on stderr), --show (every step's normalised answers, both sides), --self-check (a second fake as the reference: whatever differs then is the suite's own noise,
 * a value the normalisation misses or a step that races).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Allowlist } from './allowlist';
import { clientScenarios } from './clientnode';
import { startFake, startReference } from './clusters';
import type { Side } from './clusters';
import { differences } from './compare';
import type { Difference } from './compare';
import { execute } from './execute';
import type { Observation, Run } from './execute';
import { send } from './http';
import { Vocabulary, normalise } from './normalise';
import { loadScenarios } from './scenario';
import type { Part, Scenario } from './scenario';

interface Divergence {
  scenario: string;
  step: number;
  differences: Difference[];
  allowed: boolean;
}

const here = __dirname;

function normalised(run: Run, server: string): (unknown | undefined)[] {
  const vocab = new Vocabulary(server);
  run.seen.forEach((v) => vocab.collect(v));
  return run.observations.map((o) => (o === undefined ? undefined : normalise(o, vocab)));
}

function comparedParts(o: unknown, parts: Part[] | undefined): unknown {
  if (!o || !parts) return o;
  const obs = o as Observation;
  const keep: Record<string, unknown> = {};
  if (parts.includes('status')) keep.status = obs.status;
  if (parts.includes('headers')) keep.headers = obs.headers;
  if (parts.includes('body')) {
    keep.body = obs.body;
    keep.events = obs.events;
  }
  return keep;
}

async function createNamespace(side: Side, ns: string): Promise<void> {
  const a = await send(side, {
    method: 'POST',
    path: '/api/v1/namespaces',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
  });
  if (a.status !== 201)
    throw new Error(`${side.name}: cannot create namespace ${ns}: ${a.status} ${a.text}`);
  // The same start: the objects kube-controller-manager puts into every namespace (its default
  // ServiceAccount and kube-root-ca.crt) exist on both sides before the first step, rather than
  // arriving on the reference during a scenario, whenever its controllers get to them.
  for (const path of [
    `/api/v1/namespaces/${ns}/serviceaccounts/default`,
    `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`,
  ]) {
    const deadline = Date.now() + 30_000;
    while ((await send(side, { method: 'GET', path })).status !== 200) {
      if (Date.now() > deadline)
        throw new Error(`${side.name}: ${path} did not appear in namespace ${ns}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 400 ? `${s.slice(0, 400)}…` : s;
}

/**
 * Divergences grouped by where they are (the path without its step and indices; a status code
 * with both codes), most widespread first: the fake's bugs in the order that fixes the most.
 */
function printClasses(divergences: Divergence[]): void {
  const classes = new Map<string, { scenarios: Set<string>; example: string }>();
  for (const d of divergences) {
    for (const x of d.differences) {
      let key = x.path.replace(/^step\d+/, '').replace(/\[\d+\]/g, '[]');
      if (key === '.status') key += ` ${show(x.reference)} → ${show(x.fake)}`;
      const c = classes.get(key) ?? {
        scenarios: new Set(),
        example: `${d.scenario} step ${d.step}`,
      };
      c.scenarios.add(d.scenario);
      classes.set(key, c);
    }
  }
  const sorted = [...classes].sort((a, b) => b[1].scenarios.size - a[1].scenarios.size);
  if (sorted.length) console.log(`\nDivergence classes (scenarios affected, an example):`);
  for (const [key, c] of sorted.slice(0, 40)) {
    console.log(`  ${String(c.scenarios.size).padStart(4)}  ${key}   e.g. ${c.example}`);
  }
  if (sorted.length > 40) console.log(`  … and ${sorted.length - 40} more classes`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      filter: { type: 'string' },
      verbose: { type: 'boolean' },
      'self-check': { type: 'boolean' },
      show: { type: 'boolean' },
      progress: { type: 'boolean' },
      report: { type: 'string' },
    },
  });
  const allowlist = new Allowlist(join(here, 'allowlist.yaml'));
  const scenarios: Scenario[] = loadScenarios(join(here, 'scenarios'));
  const selected = (name: string) => !values.filter || name.includes(values.filter);
  const sides: Side[] = [];
  const stopAll = async () => {
    await Promise.all(sides.splice(0).map((s) => s.stop().catch(() => undefined)));
  };
  const interrupted = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const [reference, fake] = await Promise.all([
      values['self-check'] ? startFake('reference') : startReference(),
      startFake(),
    ]);
    sides.push(reference, fake);
    const divergences: Divergence[] = [];
    let count = 0;
    let allowedDifferences = 0;
    const judge = (name: string, runs: [Run, Run], parts: (Part[] | false | undefined)[]) => {
      const [r, f] = [normalised(runs[0], reference.server), normalised(runs[1], fake.server)];
      r.forEach((ro, i) => {
        const p = parts[i];
        if (values.show) {
          console.log(
            `${name} step ${i + 1}\n  reference: ${JSON.stringify(ro)}\n  fake:      ${JSON.stringify(f[i])}`,
          );
        }
        if (p === false) return;
        const diffs = differences(comparedParts(ro, p), comparedParts(f[i], p), `step${i + 1}`);
        if (diffs.length === 0) return;
        // The allowlist takes out the differences it covers; the step diverges on what is left.
        const left = diffs.filter((d) => allowlist.allows(name, d) === undefined);
        allowedDifferences += diffs.length - left.length;
        const allowed = left.length === 0;
        divergences.push({
          scenario: name,
          step: i + 1,
          differences: allowed ? diffs : left,
          allowed,
        });
      });
    };
    // Data scenarios and client-node ones run alike: each from a fresh namespace of the same name
    // on both clusters, both sides at once.
    const runnable = [
      ...scenarios.map((s) => ({
        name: s.name,
        run: (side: Side, ns: string) => execute(side, s.steps, ns),
        parts: s.steps.map((st) => st.compare),
      })),
      ...clientScenarios.map((c) => ({ name: c.name, run: c.run, parts: [] })),
    ];
    let index = 0;
    for (const s of runnable) {
      const ns = `diff-${++index}`;
      if (!selected(s.name)) continue;
      count++;
      const started = Date.now();
      await Promise.all([createNamespace(reference, ns), createNamespace(fake, ns)]);
      const runs = (await Promise.all([s.run(reference, ns), s.run(fake, ns)])) as [Run, Run];
      judge(s.name, runs, s.parts);
      if (values.progress) console.error(`${ns} ${s.name} ${Date.now() - started} ms`);
    }
    for (const d of divergences) {
      const tag = d.allowed ? 'allowed' : 'DIVERGENCE';
      console.log(`${tag} ${d.scenario} step ${d.step}:`);
      const shown = values.verbose ? d.differences : d.differences.slice(0, 8);
      for (const x of shown) {
        console.log(
          `  ${x.path}\n    reference: ${show(x.reference)}\n    fake:      ${show(x.fake)}`,
        );
      }
      if (shown.length < d.differences.length)
        console.log(`  … and ${d.differences.length - shown.length} more`);
    }
    const outside = divergences.filter((d) => !d.allowed);
    printClasses(outside);
    if (values.report) {
      writeFileSync(
        values.report,
        `${JSON.stringify({ scenarios: count, divergences }, null, 1)}\n`,
      );
    }
    const scenariosDiverging = new Set(outside.map((d) => d.scenario)).size;
    console.log(
      `${divergences.length - outside.length} divergences wholly allowed, ${allowedDifferences} differences taken out by the allowlist; ${scenariosDiverging} of ${count} scenarios diverge`,
    );
    console.log(
      `${count} scenarios, ${outside.length} divergences (allowlist: ${allowlist.size} entries)`,
    );
    return outside.length === 0 ? 0 : 1;
  } finally {
    await stopAll();
  }
}

void main().then((code) => process.exit(code));
