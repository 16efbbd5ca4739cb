import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import {
  DEFAULT_RUN_COMMAND,
  GoManagerProcess,
  commandLine,
  freePort,
  managerFlags,
} from '../../src/runtime/goprocess';
import type { ZapEntry } from '../../src/runtime/zaplog';
import { groupAlive } from '../../src/util/processgroup';
import { cleanup, tempDir } from './helpers';

/** A stand-in for a manager binary: a Node script run as a custom command (removed after `t`). */
function script(t: TestContext, body: string): { dir: string; command: string } {
  const dir = tempDir(t, 'rs-goproc-');
  writeFileSync(join(dir, 'mgr.js'), body);
  return { dir, command: `"${process.execPath}" mgr.js $RECONCILE_STUDIO_MANAGER_FLAGS` };
}

describe('Go manager process', () => {
  it('appends the manager flags to the default command only', () => {
    assert.equal(
      commandLine(DEFAULT_RUN_COMMAND, 8080),
      `go run -v ./cmd ${managerFlags(8080).join(' ')}`,
    );
    assert.ok(managerFlags(8080).includes('--metrics-bind-address=127.0.0.1:8080'));
    assert.ok(managerFlags(8080).includes('--zap-log-level=5'));
    assert.equal(commandLine('make run', 8080), 'make run');
  });

  it('gives the process its kubeconfig and flags, parses its zap logs and keeps its last lines and build errors', async (t) => {
    const { dir, command } = script(
      t,
      `
      console.log('starting with ' + process.env.KUBECONFIG + ' ' + process.argv.slice(2).join(' '));
      console.log(JSON.stringify({ level: 'info', ts: 1764545000.5, msg: 'Starting Controller', controller: 'webapp' }));
      console.error('internal/controller/x.go:3:4: undefined: y');
      process.exit(2);
    `,
    );
    const p = new GoManagerProcess({
      command,
      cwd: dir,
      kubeconfig: '/k/config',
      metricsPort: 9999,
    });
    cleanup(t, () => p.stop());
    const logs: ZapEntry[] = [];
    p.on('log', (e) => logs.push(e));
    await p.start();
    const exit = (await p.wait())!;
    assert.equal(exit.code, 2);
    assert.equal(exit.stopped, false);
    assert.match(
      exit.lastLines[0],
      /^starting with \/k\/config --metrics-bind-address=127\.0\.0\.1:9999 /,
    );
    assert.deepEqual(
      logs.map((l) => l.msg),
      ['Starting Controller'],
    );
    assert.deepEqual(
      exit.buildErrors.map((e) => [e.file, e.line, e.column]),
      [[join(dir, 'internal/controller/x.go'), 3, 4]],
    );
  });

  it('reports a panic and scrapes /metrics while the process serves it; stop() ends it', async (t) => {
    const port = await freePort();
    const { dir, command } = script(
      t,
      `
      const addr = process.argv.find((a) => a.startsWith('--metrics-bind-address=')).split('=')[1];
      const [host, port] = addr.split(':');
      require('node:http').createServer((req, res) => res.end('workqueue_depth{name="webapp"} 4\\n')).listen(Number(port), host, () => console.log('serving'));
      process.on('SIGTERM', () => { console.log('panic: not really'); process.exit(3); });
    `,
    );
    const p = new GoManagerProcess({ command, cwd: dir, kubeconfig: '/k', metricsPort: port });
    cleanup(t, () => p.stop());
    const serving = new Promise<void>((r) => p.on('line', (l) => l.text === 'serving' && r()));
    await p.start();
    await serving;
    const samples = await p.scrape();
    assert.deepEqual(samples, [{ name: 'workqueue_depth', labels: { name: 'webapp' }, value: 4 }]);
    await p.stop();
    const exit = (await p.wait())!;
    assert.equal(exit.stopped, true);
    assert.equal(exit.panic, 'panic: not really');
    await assert.rejects(p.scrape(500));
  });

  it('stop() resolves once the whole process group is gone, not only the shell', async (t) => {
    // A child of the command that outlives it: it lets go of the output pipes (so the shell's
    // close does not wait for it) and shuts down slowly on SIGTERM, as a manager under `go run`.
    const { dir } = script(t, '');
    const command = `(trap 'sleep 0.5; exit 0' TERM; exec >/dev/null 2>&1; while :; do sleep 0.1; done) & echo started; wait`;
    const p = new GoManagerProcess({ command, cwd: dir, kubeconfig: '/k', metricsPort: 1 });
    cleanup(t, () => p.stop());
    const started = new Promise<void>((r) => p.on('line', (l) => l.text === 'started' && r()));
    await p.start();
    await started;
    const pgid = p.pid!;
    await p.stop();
    assert.equal(groupAlive(pgid), false);
  });

  it('stop() kills a manager that does not end on SIGTERM (a reconcile that ignores its context)', async (t) => {
    const { dir } = script(t, '');
    // The whole group ignores SIGTERM, as a manager waiting out its GracefulShutdownTimeout.
    const command = `trap '' TERM; (exec >/dev/null 2>&1; while :; do sleep 0.1; done) & echo started; wait`;
    const p = new GoManagerProcess({ command, cwd: dir, kubeconfig: '/k', metricsPort: 1 });
    cleanup(t, () => p.stop());
    const started = new Promise<void>((r) => p.on('line', (l) => l.text === 'started' && r()));
    await p.start();
    await started;
    const pgid = p.pid!;
    const exit = p.wait();
    await p.stop();
    assert.equal((await exit)?.signal, 'SIGKILL');
    assert.equal((await exit)?.stopped, true);
    assert.equal(groupAlive(pgid), false);
  });
});
