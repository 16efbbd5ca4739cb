import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitLines, unifiedDiff } from '../../src/util/difflib';

// Expected texts are Python difflib.unified_diff's (go-difflib is its port), headers dropped.
const lines = (...xs: string[]) => xs.map((x) => `${x}\n`);

test('changes within 2×context lines of each other share one hunk', () => {
  assert.equal(
    unifiedDiff(
      lines('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'),
      lines('a', 'b', 'c', 'X', 'e', 'f', 'g', 'h', 'i', 'j', 'k'),
      3,
    ),
    '@@ -1,10 +1,11 @@\n a\n b\n c\n-d\n+X\n e\n f\n g\n h\n i\n j\n+k\n',
  );
});

test('a line seen in more than 1% of a 200-line text seeds no match (autojunk)', () => {
  const a = ['{\n', ...Array<string>(250).fill(' "x": 1,\n'), '}\n'];
  const b = ['{\n', ' "y": 2,\n', ...Array<string>(250).fill(' "x": 1,\n'), '}\n'];
  assert.equal(
    unifiedDiff(a, b, 3),
    '@@ -1,4 +1,5 @@\n {\n+ "y": 2,\n  "x": 1,\n  "x": 1,\n  "x": 1,\n',
  );
});

test('identical texts have no hunks; splitLines keeps a trailing empty line as SplitAfter does', () => {
  assert.equal(unifiedDiff(lines('a'), lines('a'), 3), '');
  assert.deepEqual(splitLines('a\nb'), ['a\n', 'b\n']);
  assert.deepEqual(splitLines('a\n'), ['a\n', '\n']);
});
