/** interned(): one shared string object for equal text, and a bounded table. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { interned } from '../../src/util/intern';

/** V8's address of each string, printed by %DebugPrint in a child process. */
function addresses(body: string): string[] {
  const script = `
    const { interned } = require(${JSON.stringify(join(__dirname, '../../src/util/intern.ts'))});
    const print = new Function('s', '%DebugPrint(s)');
    ${body}
  `;
  const res = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--allow-natives-syntax', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(res.status, 0, res.stderr);
  return [...res.stdout.matchAll(/^DebugPrint: (0x[0-9a-f]+)/gm)].map((m) => m[1]);
}

describe('interned', () => {
  it('returns the same string object for equal text built separately', () => {
    const [a, b, plainA, plainB] = addresses(`
      const built = () => '.status' + '.phase' + process.pid.toString().slice(0, 0);
      print(interned(built()));
      print(interned(built()));
      print(built());
      print(built());
    `);
    assert.ok(a && plainA, 'no addresses printed');
    assert.equal(b, a);
    assert.notEqual(plainB, plainA); // the control: built twice, two strings
  });

  it('returns equal text, without sharing, once its table is full', () => {
    for (let i = 0; i < 5000; i++) assert.equal(interned(`.spec.items[${i}]`), `.spec.items[${i}]`);
    assert.equal(interned('.metadata.labels.late'), '.metadata.labels.late');
  });
});
