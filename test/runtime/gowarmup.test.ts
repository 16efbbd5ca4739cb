import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DELVE_GCFLAGS } from '../../src/runtime/godebug/delve';
import { checkGoVersion, goBuild, goVersion } from '../../src/runtime/gotoolchain';
import { warmBuildCache } from '../../src/runtime/gowarmup';

describe('warming a Go operator build cache', async () => {
  const noGo = checkGoVersion(await goVersion());
  const dir = mkdtempSync(join(tmpdir(), 'rs-gowarmup-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** A main package importing one of the module's own, both new to the build cache. */
  const module = (name: string, greet: string): string => {
    const m = join(dir, name);
    mkdirSync(join(m, 'cmd'), { recursive: true });
    mkdirSync(join(m, 'greet'), { recursive: true });
    writeFileSync(join(m, 'go.mod'), `module example.com/${name}\n\ngo 1.24\n`);
    writeFileSync(join(m, 'greet', 'greet.go'), `package greet\n\n${greet}\n`);
    writeFileSync(
      join(m, 'cmd', 'main.go'),
      `package main\n\nimport "example.com/${name}/greet"\n\nfunc main() { println(greet.Hello()) }\n`,
    );
    return m;
  };

  it(
    'compiles what Run and Debug build, so their builds compile nothing more',
    { skip: noGo },
    async () => {
      const m = module('warm', `func Hello() int { return ${Date.now()} }`);
      const steps = await warmBuildCache({ cwd: m, pkg: './cmd' });
      assert.deepEqual(
        steps.map((s) => [s.build, s.result.ok]),
        [
          ['run', true],
          ['debug', true],
        ],
      );
      for (const flags of [[], [`-gcflags=${DELVE_GCFLAGS}`]]) {
        const compiled: string[] = [];
        const built = await goBuild({
          cwd: m,
          out: join(m, 'bin'),
          flags: ['-v', ...flags],
          onLine: (l) => l.trim() && compiled.push(l),
        });
        assert.equal(built.ok, true, built.output);
        assert.deepEqual(compiled, [], `go build ${flags.join(' ')} compiled after the warm-up`);
      }
    },
  );

  it('stops at the first build that fails, with its compile error', { skip: noGo }, async () => {
    const m = module('broken', 'func Hello() int { return missing }');
    const steps = await warmBuildCache({ cwd: m, pkg: './cmd' });
    assert.deepEqual(
      steps.map((s) => [s.build, s.result.ok]),
      [['run', false]],
    );
    assert.match(steps[0]!.result.output, /undefined: missing/);
  });

  it('stops on its signal', { skip: noGo }, async () => {
    const m = module('stopped', `func Hello() int { return ${Date.now()} }`);
    const abort = new AbortController();
    const warming = warmBuildCache({ cwd: m, pkg: './cmd', signal: abort.signal });
    abort.abort();
    const steps = await warming;
    assert.equal(steps.length, 1);
    assert.equal(steps[0]!.result.aborted, true);
  });
});
