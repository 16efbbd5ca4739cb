/** Deep copies of JSON objects, and of objects decoded from a known text. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clone, copyOfDecoded, decodedFrom } from '../../../src/cluster/apimachinery/clone';

describe('copyOfDecoded', () => {
  it('decodes the remembered text again: a new object equal to the one decoded', () => {
    const text = '{"metadata":{"name":"a"},"data":{"x":"1"}}';
    const obj = JSON.parse(text) as { data: { x: string } };
    decodedFrom(obj, text);
    const copy = copyOfDecoded(obj);
    assert.notEqual(copy, obj);
    assert.notEqual(copy.data, obj.data);
    assert.deepEqual(copy, obj);
  });

  it('trusts the text: the object is taken to be unchanged since it was decoded', () => {
    const text = '{"data":{"x":"1"}}';
    const obj = JSON.parse(text) as { data: { x: string } };
    decodedFrom(obj, text);
    obj.data.x = '2';
    assert.deepEqual(copyOfDecoded(obj), { data: { x: '1' } });
  });

  it('copies an object without a remembered text as clone does', () => {
    const obj = { data: { x: '1' } };
    const copy = copyOfDecoded(obj);
    assert.notEqual(copy.data, obj.data);
    assert.deepEqual(copy, clone(obj));
  });
});
