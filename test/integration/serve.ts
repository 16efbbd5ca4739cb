/**
 * Starts `reconcile-studio serve` as a child process (from the sources, so no build is needed)
 * and hands tests its kubeconfig; helpers run the machine's kubectl against it, or send raw
 * HTTP requests (exactly the bytes a test gives, path included).
 */
import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import YAML from 'yaml';

export const ROOT = resolve(__dirname, '..', '..');

export interface Served {
  kubeconfig: string;
  url: string;
  dir: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

export async function serve(args: string[] = []): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'rs-it-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'src/cli/main.ts'),
      'serve',
      '--kubeconfig',
      kubeconfig,
      '--pod-ready-delay',
      '200',
      ...args,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((res, rej) => {
    const onData = () => {
      const m = /Serving the fake cluster at (\S+)/.exec(out);
      if (m && out.includes('Kubeconfig:')) {
        child.stdout!.off('data', onData);
        res(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => rej(new Error(`serve exited with ${code}: ${out}`)));
  });
  return {
    kubeconfig,
    url,
    dir,
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The answer of one HTTPS request to a served cluster. */
export interface ApiAnswer {
  code: number;
  text: string;
}

/** An HTTPS client for a served cluster, from its kubeconfig (keep-alive, `maxSockets` in flight). */
export function apiClient(
  s: Served,
  maxSockets = 16,
): {
  call(method: string, path: string, body?: unknown): Promise<ApiAnswer>;
  close(): void;
} {
  const kc = YAML.parse(readFileSync(s.kubeconfig, 'utf8')) as {
    clusters: Array<{ cluster: { 'certificate-authority-data': string } }>;
    users: Array<{ user: { token: string } }>;
  };
  const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64');
  const token = kc.users[0].user.token;
  const agent = new Agent({ keepAlive: true, maxSockets, ca });
  return {
    call: (method, path, body) =>
      new Promise((res, rej) => {
        const text = body === undefined ? undefined : JSON.stringify(body);
        const req = request(
          `${s.url}${path}`,
          {
            method,
            agent,
            headers: {
              Authorization: `Bearer ${token}`,
              ...(text !== undefined ? { 'Content-Type': 'application/json' } : {}),
            },
          },
          (r) => {
            let out = '';
            r.setEncoding('utf8');
            r.on('data', (d: string) => (out += d));
            r.on('end', () => res({ code: r.statusCode ?? 0, text: out }));
            r.on('error', rej);
          },
        );
        req.on('error', rej);
        req.end(text);
      }),
    close: () => agent.destroy(),
  };
}

/**
 * Runs a client script of test/integration/fixtures with the system interpreter its Debian
 * package is installed for (`/usr/bin/python3`, `/usr/bin/ruby`), against a kubeconfig, and
 * parses the JSON it prints.
 */
export function runFixture(
  interpreter: string,
  fixture: string,
  kubeconfig: string,
): Promise<Record<string, unknown>> {
  const script = join(ROOT, 'test/integration/fixtures', fixture);
  return new Promise((res, rej) =>
    execFile(interpreter, [script, kubeconfig], { timeout: 60_000 }, (err, stdout, stderr) =>
      err
        ? rej(new Error(`${err.message}\n${stderr}`))
        : res(JSON.parse(stdout) as Record<string, unknown>),
    ),
  );
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubectl(
  kubeconfig: string,
  args: string[],
  input?: string,
): Promise<KubectlResult> {
  return new Promise((res) => {
    const p = execFile(
      'kubectl',
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 20_000 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        res({ code, stdout, stderr });
      },
    );
    if (input !== undefined) {
      p.stdin!.write(input);
      p.stdin!.end();
    }
  });
}

export async function ok(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const r = await kubectl(kubeconfig, args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

export const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Phase, type: string, jsonPath: .status.phase}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 0}
              color: {type: string, default: red}
          status:
            type: object
            properties:
              phase: {type: string}
`;

export interface RawResponse {
  code: number;
  json: Record<string, unknown>;
  text: string;
}

/** A raw-request client for a served cluster: the path is sent as given, never normalized. */
export function rawClient(
  s: Served,
): (
  method: string,
  path: string,
  body?: string,
  contentType?: string,
  headers?: Record<string, string>,
) => Promise<RawResponse> {
  const kc = YAML.parse(readFileSync(s.kubeconfig, 'utf8')) as {
    clusters: Array<{ cluster: { 'certificate-authority-data': string } }>;
    users: Array<{ user: { token: string } }>;
  };
  const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
  const token = kc.users[0].user.token;
  return (method, path, body, contentType = 'application/json', headers = {}) =>
    new Promise((res, rej) => {
      // Host and port from the URL, the path as given: a URL object would resolve `..` segments.
      const { hostname, port } = new URL(s.url);
      const req = request(
        {
          hostname,
          port,
          path,
          method,
          ca,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(body !== undefined ? { 'Content-Type': contentType } : {}),
            ...headers,
          },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (d: Buffer) => chunks.push(d));
          r.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let json: Record<string, unknown> = {};
            try {
              json = JSON.parse(text) as Record<string, unknown>;
            } catch {
              /* not JSON */
            }
            res({ code: r.statusCode ?? 0, json, text });
          });
        },
      );
      req.on('error', rej);
      req.end(body);
    });
}
