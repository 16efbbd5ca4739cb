/** FNV-1a 32: Go's hash/fnv New32a, checked against its published test vectors. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FNV32_OFFSET, fnv1a32 } from '../../src/util/fnv';

describe('fnv1a32', () => {
  it('matches hash/fnv New32a on its test vectors', () => {
    // golden32a in Go's src/hash/fnv/fnv_test.go
    assert.equal(fnv1a32(''), 0x811c9dc5);
    assert.equal(fnv1a32('a'), 0xe40c292c);
    assert.equal(fnv1a32('ab'), 0x4d2505ca);
    assert.equal(fnv1a32('abc'), 0x1a47e90b);
  });

  it('hashes several strings as one when given the previous result as its seed', () => {
    assert.equal(fnv1a32('bc', fnv1a32('a')), fnv1a32('abc'));
    assert.equal(fnv1a32('abc', FNV32_OFFSET), fnv1a32('abc'));
  });
});
