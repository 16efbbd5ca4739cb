/** Runs one scenario's steps against one cluster and records what each step observed. */
import { spawn } from 'node:child_process';
import { stringify } from 'yaml';
import type { Side } from './clusters';
import { send } from './http';
import type { Answer } from './http';
import { deepMerge } from './scenario';
import type { Step } from './scenario';

/** What a step saw: an HTTP answer, a watch's events, or a kubectl run. */
export interface Observation {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  events?: unknown[];
  exitCode?: number;
  stdout?: unknown;
  stderr?: string;
  timedOut?: boolean;
}

const CONTENT_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

type Vars = Map<string, unknown>;

function substitute(value: unknown, vars: Vars): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{(\w+)\}\}$/.exec(value);
    if (whole && vars.has(whole[1]!) && typeof vars.get(whole[1]!) !== 'string')
      return vars.get(whole[1]!);
    return value.replace(/\{\{(\w+)\}\}/g, (m, k: string) =>
      vars.has(k) ? String(vars.get(k)) : m,
    );
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

export function at(value: unknown, dotted: string): unknown {
  let cur = value;
  for (const part of dotted.split('.').filter(Boolean)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur =
      part === 'length' && Array.isArray(cur) ? cur.length : (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The headers a client acts on; Audit-Id's value is random, its presence is not. */
function headersThatMatter(a: Answer): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of ['content-type', 'warning', 'retry-after']) {
    if (a.headers[h] !== undefined) out[h] = a.headers[h]!;
  }
  out['audit-id'] = a.headers['audit-id'] ? 'present' : 'absent';
  return out;
}

function httpObservation(a: Answer, watch: boolean): Observation {
  const obs: Observation = { status: a.status, headers: headersThatMatter(a) };
  if (watch && a.status === 200) {
    obs.events = a.text
      .split('\n')
      .filter((l) => l.trim())
      .map(parseBody);
  } else obs.body = parseBody(a.text);
  return obs;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function kubectl(side: Side, args: string[], stdin: string | undefined): Promise<Observation> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', ['--kubeconfig', side.kubeconfig, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      // Each side has its own address; where it appears is compared, not the port.
      const strip = (s: string) => s.split(side.server).join('<server>');
      resolve({ exitCode: code ?? -1, stdout: parseBody(strip(stdout)), stderr: strip(stderr) });
    });
    child.stdin.end(stdin ?? '');
  });
}

export interface Run {
  observations: (Observation | undefined)[];
  /** Every value the side answered, for the normalisation's vocabulary (resource versions, names). */
  seen: unknown[];
}

export async function execute(side: Side, steps: Step[], ns: string): Promise<Run> {
  const vars: Vars = new Map([['ns', ns]]);
  const run: Run = { observations: [], seen: [] };
  for (const raw of steps) {
    const step = substitute(raw, vars) as Step & { watch?: boolean };
    if (step.sleep !== undefined) {
      await delay(step.sleep);
      run.observations.push(undefined);
      continue;
    }
    let obs: Observation;
    if (step.kubectl) {
      obs = await kubectl(side, step.kubectl, step.stdin);
    } else {
      const headers: Record<string, string> = { ...step.headers };
      if (step.type) headers['Content-Type'] = CONTENT_TYPES[step.type];
      let body: unknown =
        step.bodyFrom !== undefined ? deepMerge(vars.get(step.bodyFrom), step.merge) : step.body;
      if (body !== undefined && typeof body !== 'string') {
        body = step.type === 'apply' ? stringify(body) : JSON.stringify(body);
      }
      // What was sent is part of the vocabulary: a generateName the server then refused, say.
      run.seen.push(typeof body === 'string' ? parseBody(body) : body);
      const req = {
        method: step.method ?? 'GET',
        path: step.path!,
        headers,
        ...(body !== undefined ? { body: body as string } : {}),
        ...(step.events !== undefined ? { events: step.events } : {}),
        ...(step.timeoutMs !== undefined ? { timeoutMs: step.timeoutMs } : {}),
      };
      if (step.until !== undefined) {
        const deadline = Date.now() + (step.timeoutMs ?? 10_000);
        for (;;) {
          const a = await send(side, { ...req, timeoutMs: 10_000 });
          obs = httpObservation(a, false);
          const v = at(obs.body, step.until);
          const met =
            step.equals === undefined
              ? v !== undefined
              : JSON.stringify(v ?? null) === JSON.stringify(step.equals);
          if (met) break;
          if (Date.now() > deadline) {
            obs.timedOut = true;
            break;
          }
          await delay(250);
        }
      } else {
        obs = httpObservation(await send(side, req), step.watch === true);
      }
    }
    run.seen.push(obs.body, obs.events, obs.stdout);
    for (const [name, path] of Object.entries(step.capture ?? {})) {
      vars.set(name, at(obs.body ?? obs.stdout, path));
    }
    run.observations.push(step.compare === false ? undefined : obs);
  }
  return run;
}
