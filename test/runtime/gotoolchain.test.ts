import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { checkGoVersion, goVersion, parseBuildErrors } from '../../src/runtime/gotoolchain';

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
