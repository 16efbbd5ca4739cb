import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import {
  checkGoVersion,
  goBuild,
  goVersion,
  parseBuildErrors,
} from '../../src/runtime/gotoolchain';

describe('Go toolchain', () => {
  it('finds compile errors with file, line and column, continuation lines included', () => {
    const out = [
      'go: downloading k8s.io/api v0.36.0',
      '# example.com/quota-operator/internal/controller',
      'internal/controller/webapp_controller.go:42:9: undefined: foo',
      './cmd/main.go:7:2: "os" imported and not used',
      '\thave (int)',
      'api/v1/types.go:3: syntax error',
      'exit status 1',
    ].join('\n');
    const errs = parseBuildErrors(out, '/m');
    assert.deepEqual(
      errs.map((e) => [e.file, e.line, e.column, e.message, e.pkg]),
      [
        [
          '/m/internal/controller/webapp_controller.go',
          42,
          9,
          'undefined: foo',
          'example.com/quota-operator/internal/controller',
        ],
        [
          '/m/cmd/main.go',
          7,
          2,
          '"os" imported and not used\nhave (int)',
          'example.com/quota-operator/internal/controller',
        ],
        [
          '/m/api/v1/types.go',
          3,
          1,
          'syntax error',
          'example.com/quota-operator/internal/controller',
        ],
      ],
    );
  });

  it('says Go 1.24 or newer is needed when there is no Go or an old one', async () => {
    assert.equal(await goVersion('/nonexistent/go'), undefined);
    assert.match(checkGoVersion(undefined)!, /^Go 1\.24 or newer is needed to run Go operators/);
    assert.match(
      checkGoVersion({ version: 'go1.22.1', major: 1, minor: 22 })!,
      /go1\.22\.1 was found/,
    );
    assert.equal(checkGoVersion({ version: 'go1.26.8', major: 1, minor: 26 }), undefined);
  });
});

describe('go build', async () => {
  const noGo = checkGoVersion(await goVersion());
  const dir = mkdtempSync(join(tmpdir(), 'rs-gobuild-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** A module of one main package whose source is new to the build cache (so it is compiled). */
  const module = (name: string, body: string): string => {
    const m = join(dir, name);
    rmSync(m, { recursive: true, force: true });
    mkdirSync(join(m, 'cmd'), { recursive: true });
    writeFileSync(join(m, 'go.mod'), `module example.com/${name}\n\ngo 1.24\n`);
    writeFileSync(join(m, 'cmd', 'main.go'), `package main\n\n${body}\n`);
    return m;
  };

  it(
    'says each package as -v compiles it, line by line, and writes the binary',
    { skip: noGo },
    async () => {
      const m = module('tiny', `func main() { println(${Date.now()}) }`);
      const lines: string[] = [];
      const built = await goBuild({
        cwd: m,
        out: join(m, 'bin'),
        flags: ['-v'],
        onLine: (l) => lines.push(l),
      });
      assert.equal(built.ok, true, built.output);
      assert.equal(built.aborted, false);
      assert.ok(lines.includes('example.com/tiny/cmd'), lines.join('\n'));
      assert.ok(existsSync(join(m, 'bin')));
    },
  );

  it('answers a compile error at its file and line, not as stopped', { skip: noGo }, async () => {
    const m = module('broken', 'func main() { undefinedName() }');
    const built = await goBuild({ cwd: m, out: join(m, 'bin') });
    assert.equal(built.ok, false);
    assert.equal(built.aborted, false);
    assert.deepEqual(
      built.errors.map((e) => [e.file, e.line, e.message]),
      [[join(m, 'cmd', 'main.go'), 3, 'undefined: undefinedName']],
    );
  });

  it('stops on its signal and says it was stopped', { skip: noGo }, async () => {
    const m = module('stopped', `func main() { println(${Date.now()}) }`);
    const abort = new AbortController();
    const building = goBuild({ cwd: m, out: join(m, 'bin'), signal: abort.signal });
    abort.abort();
    const built = await building;
    assert.equal(built.ok, false);
    assert.equal(built.aborted, true);
    assert.equal(existsSync(join(m, 'bin')), false);
  });
});
