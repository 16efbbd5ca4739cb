import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BuildProgress, describeBuild, describeDelveStart } from '../../src/runtime/buildprogress';

test('the packages go run -v compiles count as progress until the program speaks', () => {
  const b = new BuildProgress();
  assert.equal(b.feed('go: downloading sigs.k8s.io/controller-runtime v0.24.1'), true);
  assert.equal(b.feed('k8s.io/apimachinery/pkg/util/sets'), true);
  assert.equal(b.feed('sigs.k8s.io/controller-runtime/pkg/client'), true);
  assert.equal(b.feed('example.com/quota-operator/cmd'), true);
  assert.deepEqual(b.current, {
    packages: 3,
    last: 'example.com/quota-operator/cmd',
    done: false,
  });
  assert.equal(b.feed('{"level":"info","msg":"starting manager"}'), false);
  assert.equal(b.current.done, true);
  assert.equal(b.feed('k8s.io/after/the/build'), false, 'nothing counts once the build is over');
  assert.equal(b.current.packages, 3);
});

test('a build error ends the progress', () => {
  const b = new BuildProgress();
  b.feed('example.com/op/internal/controller');
  assert.equal(b.feed('# example.com/op/internal/controller'), false);
  assert.equal(b.current.done, true);
});

test('the description says how many packages, how long and which was last', () => {
  assert.equal(
    describeBuild({ packages: 57, last: 'sigs.k8s.io/x', done: false }, 62_500),
    'Building: 57 packages, 1:02 — sigs.k8s.io/x',
  );
  assert.equal(
    describeBuild({ packages: 0, last: undefined, done: false }, 900),
    'Building: 0 packages, 0:00',
  );
});

test('once the debug build is done, Delve starting it is said with the time and what was built', () => {
  const built = { packages: 57, last: 'example.com/op/cmd', done: true };
  assert.equal(
    describeDelveStart(built, 102_400),
    'Starting under Delve: 1:42 (57 packages built)',
  );
  assert.equal(
    describeDelveStart({ packages: 0, last: undefined, done: true }, 3_000),
    'Starting under Delve: 0:03',
    'a build from a warm cache compiles nothing and says nothing of it',
  );
});
