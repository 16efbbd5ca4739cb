import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { findDelve } from '../../../src/runtime/godebug/delve';
import {
  delveGoProblem,
  delveGoRange,
  explainDelveRefusal,
  parseCompat,
  unsupportedGo,
  type DelveGoRange,
} from '../../../src/runtime/godebug/goversion';
import { GoDebugSession } from '../../../src/runtime/godebug/session';

const RANGE: DelveGoRange = {
  delve: '1.27.2',
  min: { major: 1, minor: 25 },
  max: { major: 1, minor: 27 },
};
const go = (version: string) => {
  const [, major, minor] = /^go(\d+)\.(\d+)/.exec(version)!;
  return { version, major: Number(major), minor: Number(minor) };
};

describe('Go debugger: the Go versions Delve supports', () => {
  it("reads the range from Delve's pkg/goversion", () => {
    const src = `var (
	MinSupportedVersionOfGoMajor = 1
	MinSupportedVersionOfGoMinor = 25
	MaxSupportedVersionOfGoMajor = 1
	MaxSupportedVersionOfGoMinor = 27
)`;
    assert.deepEqual(parseCompat(src), { min: RANGE.min, max: RANGE.max });
    assert.equal(parseCompat('package goversion'), undefined);
  });

  it('accepts the releases in range, every patch of the newest included', () => {
    assert.equal(unsupportedGo(go('go1.25.0'), RANGE), undefined);
    assert.equal(unsupportedGo(go('go1.27.9'), RANGE), undefined);
  });

  it('names both versions for a Go too new or too old', () => {
    const young = unsupportedGo(go('go1.28.1'), RANGE)!;
    assert.match(
      young,
      /Go 1\.28\.1 is too new for Delve 1\.27\.2, which debugs Go 1\.25 to 1\.27/,
    );
    assert.match(young, /go install github\.com\/go-delve\/delve\/cmd\/dlv@latest/);
    assert.match(
      unsupportedGo(go('go1.24.3'), RANGE)!,
      /Go 1\.24\.3 is too old for Delve 1\.27\.2/,
    );
  });

  it("translates Delve's own refusal", () => {
    assert.match(
      explainDelveRefusal(
        'Version of Delve is too old for Go version 1.28.0 (maximum supported version 1.27, suppress this error with --check-go-version=false)',
        '1.27.2',
      )!,
      /Go 1\.28\.0 is too new for the 1\.27\.2 Delve \(it supports Go up to 1\.27\)/,
    );
    assert.match(
      explainDelveRefusal(
        'Go version 1.24.3 is too old for this version of Delve (minimum supported version 1.25, suppress this error with --check-go-version=false)',
      )!,
      /Go 1\.24\.3 is too old .* needs Go 1\.25 or newer/,
    );
    assert.equal(explainDelveRefusal('could not launch process: exit status 1'), undefined);
  });
});

describe('Debug Go Operator with a Go this Delve does not support', async () => {
  const dlv = await findDelve();
  let realGo = '';
  try {
    realGo = execFileSync('sh', ['-c', 'command -v go']).toString().trim();
  } catch {
    // No Go.
  }
  // The range is read from Delve's source in the module cache, where `go install` leaves it.
  const range = dlv && (await delveGoRange(dlv));
  const skip = !realGo || !range ? 'needs Go, and Delve installed with its source' : false;

  it('says so with both versions, and starts nothing', { skip }, async () => {
    // A `go` that reports a release past every Delve's range, and is the real one otherwise.
    const shim = mkdtempSync(join(tmpdir(), 'rs-go-'));
    try {
      writeFileSync(
        join(shim, 'go'),
        `#!/bin/sh\nif [ "$1 $2" = "env GOVERSION" ]; then echo go1.999.0; exit 0; fi\nexec "${realGo}" "$@"\n`,
      );
      chmodSync(join(shim, 'go'), 0o755);
      const env = { ...process.env, PATH: `${shim}${delimiter}${process.env.PATH}` };
      const problem = await delveGoProblem(dlv!, env);
      assert.match(
        problem ?? '',
        /Go 1\.999\.0 is too new for Delve \d+\.\d+\.\d+, which debugs Go/,
      );
      const session = new GoDebugSession({
        dlv: dlv!,
        env,
        kubeconfig: join(shim, 'kubeconfig'),
        metricsPort: 0,
        moduleDir: shim,
        symbols: { version: 'v0.24.1', dir: shim, functions: [], lines: [] },
        reconcilers: [],
        audit: { events: () => [] },
        user: 'go-operator-debug',
      });
      await assert.rejects(session.start(), { message: problem });
      assert.equal(session.delvePid(), 0);
    } finally {
      rmSync(shim, { recursive: true, force: true });
    }
  });
});
