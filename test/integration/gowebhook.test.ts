/**
 * A Go operator of our own with admission webhooks (fixtures/nightly-operator: a Nightly CRD, a
 * controller that runs its Jobs, a defaulting and a validating webhook built with
 * controller-runtime's webhook builder) against `serve`: the webhook configurations name a
 * Service, `--webhook-service` maps it to the manager's loopback port, and the webhook server's
 * certificate is issued for the Service's name by a CA the test makes (the caBundle). One build,
 * one manager. Skipped, saying why, where Go is missing.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { generateServingCerts } from '../../src/cluster/auth/certs';
import { freePort } from '../../src/runtime/goprocess';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { ROOT, ok, rawClient, serve } from './serve';
import type { Served } from './serve';

const OPERATOR = join(ROOT, 'test', 'integration', 'fixtures', 'nightly-operator');
/** The Service the generated webhook configurations name (kubebuilder's `system/webhook-service`). */
const SERVICE = { namespace: 'system', name: 'webhook-service' };
const VALIDATING = 'vnightly-v1.ops.example.com';

interface Job {
  metadata: {
    name: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  spec: { template: { spec: { restartPolicy?: string } } };
  status?: { conditions?: { type: string; status: string }[] };
}

interface Nightly {
  metadata: { name: string; uid: string };
  spec: {
    schedule?: string;
    keepJobs?: number;
    jobTemplate: { spec: { template: { spec: { restartPolicy?: string } } } };
  };
  status?: {
    active?: { kind: string; name: string; uid: string }[];
    lastScheduleTime?: string;
    lastCompletion?: { job: string; time: string; succeeded: boolean };
  };
}

/** A Nightly whose Job runs one container; `extra` is merged into its spec. */
function nightly(name: string, spec: Record<string, unknown> = {}, podAnnotations = {}) {
  return {
    apiVersion: 'ops.example.com/v1',
    kind: 'Nightly',
    metadata: { name, namespace: 'default' },
    spec: {
      jobTemplate: {
        spec: {
          backoffLimit: 0,
          template: {
            metadata: { annotations: podAnnotations },
            spec: { containers: [{ name: 'report', image: 'busybox:1.37', command: ['true'] }] },
          },
        },
      },
      ...spec,
    },
  };
}

/** Polls until `check` stops throwing; its last error is the failure when it never does. */
async function eventually(check: () => Promise<void>, attempts = 240): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function getJson<T>(kubeconfig: string, args: string[]): Promise<T> {
  return JSON.parse(await ok(kubeconfig, [...args, '-o', 'json'])) as T;
}

describe('a Go operator with webhooks against serve', { timeout: 900_000 }, async () => {
  const goProblem = checkGoVersion(await goVersion());
  let tmp = '';
  let s: Served | undefined;
  let manager: ChildProcess | undefined;
  let managerOut = '';

  before(async () => {
    if (goProblem) return;
    tmp = mkdtempSync(join(tmpdir(), 'rs-gowebhook-'));
    const bin = join(tmp, 'manager');
    // The Go build cache keeps this quick after the first run.
    await new Promise<void>((res, rej) =>
      execFile(
        'go',
        ['build', '-o', bin, './cmd'],
        { cwd: OPERATOR, timeout: 600_000, maxBuffer: 64 << 20 },
        (err, stdout, stderr) =>
          err ? rej(new Error(`go build failed:\n${stdout}${stderr}`)) : res(),
      ),
    );

    // The serving certificate is for the Service's DNS name, which the apiserver verifies.
    const certs = await generateServingCerts([`${SERVICE.name}.${SERVICE.namespace}.svc`]);
    const certDir = join(tmp, 'certs');
    mkdirSync(certDir);
    writeFileSync(join(certDir, 'tls.crt'), certs.certPem);
    writeFileSync(join(certDir, 'tls.key'), certs.keyPem, { mode: 0o600 });

    const port = await freePort();
    s = await serve([
      '--manifests',
      join(OPERATOR, 'config', 'crd'),
      '--webhook-service',
      `${SERVICE.namespace}/${SERVICE.name}=127.0.0.1:${port}`,
      '--pod-run-time',
      '300',
    ]);
    // What cert-manager's CA injector would do: the configurations get the CA as caBundle.
    const caBundle = Buffer.from(certs.caPem).toString('base64');
    const configs = YAML.parseAllDocuments(
      readFileSync(join(OPERATOR, 'config', 'webhook', 'manifests.yaml'), 'utf8'),
    ).map((d) => {
      const c = d.toJS() as { webhooks: { clientConfig: Record<string, unknown> }[] };
      for (const w of c.webhooks) w.clientConfig.caBundle = caBundle;
      return c;
    });
    // As YAML documents: kubectl validates a `List` against /openapi/v2 in protobuf, which serve
    // does not answer yet.
    await ok(
      s.kubeconfig,
      ['apply', '-f', '-'],
      configs.map((c) => YAML.stringify(c)).join('---\n'),
    );

    manager = spawn(
      bin,
      [
        `--webhook-cert-path=${certDir}`,
        '--webhook-host=127.0.0.1',
        `--webhook-port=${port}`,
        '--zap-log-level=2',
      ],
      { cwd: OPERATOR, env: { ...process.env, KUBECONFIG: s.kubeconfig }, stdio: 'pipe' },
    );
    manager.stdout!.on('data', (d: Buffer) => (managerOut += d.toString()));
    manager.stderr!.on('data', (d: Buffer) => (managerOut += d.toString()));
    await eventually(async () => {
      assert.equal(manager!.exitCode, null, managerOut);
      assert.match(managerOut, /Serving webhook server/);
    });
  });

  after(async () => {
    if (manager && manager.exitCode === null) {
      const exited = new Promise((r) => manager!.once('exit', r));
      manager.kill('SIGTERM');
      await exited;
    }
    await s?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it(
    'fills the defaulting webhook defaults into a Nightly that leaves them out',
    { skip: goProblem },
    async () => {
      await ok(s!.kubeconfig, ['create', '-f', '-'], JSON.stringify(nightly('plain')));
      const n = await getJson<Nightly>(s!.kubeconfig, ['get', 'nightly', 'plain']);
      assert.equal(n.spec.schedule, '02:00');
      assert.equal(n.spec.keepJobs, 3);
      assert.equal(n.spec.jobTemplate.spec.template.spec.restartPolicy, 'Never');

      // What a Nightly gives is kept.
      await ok(
        s!.kubeconfig,
        ['create', '-f', '-'],
        JSON.stringify(
          nightly(
            'long',
            { schedule: '23:30', keepJobs: 1 },
            { 'reconcile-studio/run-seconds': '3600' },
          ),
        ),
      );
      const long = await getJson<Nightly>(s!.kubeconfig, ['get', 'nightly', 'long']);
      assert.deepEqual([long.spec.schedule, long.spec.keepJobs], ['23:30', 1]);
    },
  );

  it(
    'refuses a Nightly with a bad schedule with the webhook named, as a 422',
    { skip: goProblem },
    async () => {
      const call = rawClient(s!);
      const r = await call(
        'POST',
        '/apis/ops.example.com/v1/namespaces/default/nightlies',
        JSON.stringify(nightly('bad', { schedule: '25:00' })),
      );
      const detail = 'Invalid value: "25:00": must be a time of day as HH:MM, 00:00 to 23:59';
      // The webhook answers apierrors.NewInvalid's Status; the apiserver keeps its code, reason
      // and details and puts `admission webhook "NAME" denied the request: ` before its message
      // (webhookerrors.ToStatusErr).
      assert.equal(r.code, 422, r.text);
      assert.deepEqual(r.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `admission webhook "${VALIDATING}" denied the request: Nightly.ops.example.com "bad" is invalid: spec.schedule: ${detail}`,
        reason: 'Invalid',
        details: {
          name: 'bad',
          group: 'ops.example.com',
          kind: 'Nightly',
          causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'spec.schedule' }],
        },
        code: 422,
      });
      const get = await call('GET', '/apis/ops.example.com/v1/namespaces/default/nightlies/bad');
      assert.equal(get.code, 404);

      // An update is checked too (a patch: no resourceVersion to conflict with the controller's).
      const u = await call(
        'PATCH',
        '/apis/ops.example.com/v1/namespaces/default/nightlies/plain',
        JSON.stringify({ spec: { keepJobs: 11 } }),
        'application/merge-patch+json',
      );
      assert.equal(u.code, 422, u.text);
      assert.equal(
        u.json.message,
        `admission webhook "${VALIDATING}" denied the request: Nightly.ops.example.com "plain" is invalid: spec.keepJobs: Invalid value: 11: must be between 0 and 10`,
      );
    },
  );

  it('runs its Jobs to completion and records them in status', { skip: goProblem }, async () => {
    const kc = s!.kubeconfig;
    await ok(
      kc,
      ['create', '-f', '-'],
      JSON.stringify(nightly('broken', {}, { 'reconcile-studio/exit-code': '1' })),
    );
    const jobsOf = async (name: string) =>
      (
        await getJson<{ items: Job[] }>(kc, [
          'get',
          'jobs',
          '-l',
          `ops.example.com/nightly=${name}`,
        ])
      ).items;
    const condition = (j: Job, type: string) =>
      j.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

    // plain: its one Job, owned by it, with the defaulted restartPolicy, completes.
    await eventually(async () => {
      const n = await getJson<Nightly>(kc, ['get', 'nightly', 'plain']);
      const [job, ...more] = await jobsOf('plain');
      assert.ok(job, 'plain has a Job');
      assert.equal(more.length, 0);
      const owner = job.metadata.ownerReferences?.find((o) => o.controller);
      assert.deepEqual(owner && [owner.kind, owner.name, owner.uid], [
        'Nightly',
        'plain',
        n.metadata.uid,
      ]);
      assert.equal(job.spec.template.spec.restartPolicy, 'Never');
      assert.ok(condition(job, 'Complete'), 'the Job completed');
      assert.equal(n.status?.lastCompletion?.job, job.metadata.name);
      assert.equal(n.status?.lastCompletion?.succeeded, true);
      assert.equal(n.status?.active, undefined);
      // Its run is the latest 02:00 UTC, which the Job's annotation and name (minutes) carry.
      const scheduled = job.metadata.annotations?.['ops.example.com/scheduled-at'];
      assert.equal(n.status?.lastScheduleTime, scheduled);
      const at = new Date(scheduled!);
      assert.equal(`${at.getUTCHours()}:${at.getUTCMinutes()}`, '2:0');
      assert.equal(job.metadata.name, `plain-${at.getTime() / 60_000}`);
    });

    // broken: its pod exits 1, the Job fails (backoffLimit 0), the Nightly records the failure.
    await eventually(async () => {
      const n = await getJson<Nightly>(kc, ['get', 'nightly', 'broken']);
      const [job] = await jobsOf('broken');
      assert.ok(job && condition(job, 'Failed'), 'the Job failed');
      assert.deepEqual(
        n.status?.lastCompletion && [
          n.status.lastCompletion.job,
          n.status.lastCompletion.succeeded,
        ],
        [job.metadata.name, false],
      );
    });

    // long: its pod runs for an hour; its Job is listed as active, nothing has completed.
    await eventually(async () => {
      const n = await getJson<Nightly>(kc, ['get', 'nightly', 'long']);
      const [job] = await jobsOf('long');
      assert.ok(job, 'long has a Job');
      assert.deepEqual(
        n.status?.active?.map((a) => [a.kind, a.name, a.uid]),
        [['Job', job.metadata.name, job.metadata.uid]],
      );
      assert.equal(n.status?.lastCompletion, undefined);
    });
    assert.equal(manager!.exitCode, null, managerOut);
  });
});

describe('the webhook test operator', { timeout: 600_000 }, async () => {
  const goProblem = checkGoVersion(await goVersion());

  it(
    'has the CRD and webhook configurations controller-gen generates from its markers',
    { skip: goProblem },
    async () => {
      // The command its `go generate` runs, into a temp folder.
      const line = readFileSync(join(OPERATOR, 'api', 'v1', 'generate.go'), 'utf8')
        .split('\n')
        .find((l) => l.includes(' crd'))!;
      const args = line.replace(/^\/\/go:generate go /, '').split(' ');
      const out = mkdtempSync(join(tmpdir(), 'rs-gowebhook-gen-'));
      try {
        const generated = args.map((a) =>
          a.replace(/^(output:(crd|webhook):artifacts:config=).*/, `$1${join(out, '$2')}`),
        );
        await new Promise<void>((res, rej) =>
          execFile(
            'go',
            generated,
            { cwd: join(OPERATOR, 'api', 'v1'), timeout: 600_000 },
            (err, stdout, stderr) => (err ? rej(new Error(`${stdout}${stderr}`)) : res()),
          ),
        );
        for (const file of ['crd/ops.example.com_nightlies.yaml', 'webhook/manifests.yaml'])
          assert.equal(
            readFileSync(join(out, file), 'utf8'),
            readFileSync(join(OPERATOR, 'config', file), 'utf8'),
            file,
          );
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
  );
});
