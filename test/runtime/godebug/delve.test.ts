import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { DELVE_MISSING, findDelve } from '../../../src/runtime/godebug/delve';
import { tempDir } from '../helpers';

function fakeDlv(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'dlv');
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

function goBinDir(): string | undefined {
  try {
    return dirname(execFileSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).trim());
  } catch {
    return undefined;
  }
}

describe('finding Delve', () => {
  it('finds nothing when neither the PATH nor GOPATH/bin has dlv, and says how to install it', async (t) => {
    const empty = tempDir(t, 'rs-nodlv-');
    assert.equal(await findDelve({ PATH: empty, GOPATH: empty, HOME: empty }), undefined);
    assert.match(DELVE_MISSING, /go install github\.com\/go-delve\/delve\/cmd\/dlv@v1\.27\./);
  });

  it('prefers dlv on the PATH', async (t) => {
    const dir = tempDir(t, 'rs-dlvpath-');
    const dlv = fakeDlv(join(dir, 'bin'));
    assert.equal(await findDelve({ PATH: join(dir, 'bin') }), dlv);
  });

  it(
    'falls back to GOPATH/bin, where go install puts it',
    { skip: !goBinDir() && 'no go' },
    async (t) => {
      const gopath = tempDir(t, 'rs-gopath-');
      const dlv = fakeDlv(join(gopath, 'bin'));
      const home = tempDir(t, 'rs-home-');
      // go's telemetry is off only by its mode file (GOTELEMETRY cannot be set from the
      // environment); otherwise a child of go keeps writing under HOME, racing the clean-up.
      mkdirSync(join(home, '.config/go/telemetry'), { recursive: true });
      writeFileSync(join(home, '.config/go/telemetry/mode'), 'off\n');
      assert.equal(
        await findDelve({
          PATH: goBinDir()!,
          GOPATH: gopath,
          HOME: home,
          GOCACHE: join(home, 'c'),
        }),
        dlv,
      );
    },
  );
});
