/** flattened(): the same text, held by V8 as one flat string once a collection has run. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { flattened } from '../../src/util/flatstring';

describe('flattened', () => {
  it('returns the string it is given, whatever it looks like', () => {
    for (const s of ['', '0', '12', 'NaN', ' 7 ', 'Get WebApp default/app-1 (cache) → 200']) {
      assert.equal(flattened(s), s);
    }
    let built = 'Update status';
    for (let i = 0; i < 5; i++) built += ` part ${i}`;
    assert.equal(flattened(built), 'Update status part 0 part 1 part 2 part 3 part 4');
  });

  it('leaves V8 holding a concatenated string as one piece after a young collection', () => {
    // V8's own view of the strings (natives syntax), in a child process started with the flags.
    const script = `
      const { flattened } = require(${JSON.stringify(join(__dirname, '../../src/util/flatstring.ts'))});
      const print = new Function('s', '%DebugPrint(s)');
      const kept = {};
      for (const k of ['flat', 'cons']) {
        kept[k] = 'Reconcile default/app-' + process.pid;
        kept[k] += ' (reconcileID ' + process.ppid + ')';
      }
      flattened(kept.flat);
      gc({ type: 'minor' });
      print(kept.flat);
      print(kept.cons);
    `;
    const res = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--allow-natives-syntax', '--expose-gc', '-e', script],
      { encoding: 'utf8' },
    );
    assert.equal(res.status, 0, res.stderr);
    const types = [...res.stdout.matchAll(/^ - type: (\w+)/gm)].map((m) => m[1]);
    assert.equal(types.length, 2, res.stdout);
    assert.doesNotMatch(types[0], /^CONS_/);
    assert.match(types[1], /^CONS_/); // the control: untouched, still in pieces
  });
});
