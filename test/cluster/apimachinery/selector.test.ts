import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector } from '../../../src/cluster/apimachinery/selector';

function message(selector: string): string {
  try {
    parseLabelSelector(selector);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

test('label selector errors are worded as labels.Parse words them (kube-apiserver 1.36.3)', () => {
  // A requirement's own error is wrapped; an error between requirements is not.
  assert.equal(message('a in b'), "unable to parse requirement: found 'b' expected: '('");
  assert.equal(message('==b'), "found '==', expected: !, identifier, or 'end of string'");
  assert.equal(message('a=b c'), "found 'c', expected: ',' or 'end of string'");
  assert.equal(message('a=b,'), "found '', expected: identifier after ','");
  assert.deepEqual(parseLabelSelector('a=b,!c'), [
    { key: 'a', op: '=', values: ['b'] },
    { key: 'c', op: '!', values: [] },
  ]);
});
