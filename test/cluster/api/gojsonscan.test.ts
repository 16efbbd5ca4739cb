/**
 * encoding/json's syntax errors, word for word. The expected messages are Go 1.26's own answers
 * (json.Unmarshal) for each input.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goJsonSyntaxError } from '../../../src/cluster/api/gojsonscan';

const GO_ANSWERS: Array<[string, string]> = [
  ['{"metadata": {"name": "a"', 'unexpected end of JSON input'],
  ['{"a" 1}', "invalid character '1' after object key"],
  ['{"a": 1 "b": 2}', "invalid character '\"' after object key:value pair"],
  ['[1, 2 3]', "invalid character '3' after array element"],
  ['{a: 1}', "invalid character 'a' looking for beginning of object key string"],
  ['{"a": tru}', "invalid character '}' in literal true (expecting 'e')"],
  ['{"a": nul}', "invalid character '}' in literal null (expecting 'l')"],
  ['{"a": "x\u0001"}', "invalid character '\\x01' in string literal"],
  ['{"a": "\\q"}', "invalid character 'q' in string escape code"],
  ['{"a": "\\u12G4"}', "invalid character 'G' in \\u hexadecimal character escape"],
  ['{"a": -x}', "invalid character 'x' in numeric literal"],
  ['{"a": 1.}', "invalid character '}' after decimal point in numeric literal"],
  ['{"a": 1e}', "invalid character '}' in exponent of numeric literal"],
  ['{} x', "invalid character 'x' after top-level value"],
  ['', 'unexpected end of JSON input'],
  ['   ', 'unexpected end of JSON input'],
  ['{"a": \'x\'}', "invalid character '\\'' looking for beginning of value"],
  ['{,}', "invalid character ',' looking for beginning of object key string"],
  ['[,]', "invalid character ',' looking for beginning of value"],
  ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ['{"a": 01}', "invalid character '1' after object key:value pair"],
];

test('a body that is not JSON gets the error encoding/json gives, for each state of its scanner', () => {
  for (const [input, expected] of GO_ANSWERS)
    assert.equal(goJsonSyntaxError(Buffer.from(input)), expected, input);
});

test('valid JSON has no syntax error', () => {
  for (const input of [
    '{}',
    '[]',
    '123',
    '-0.5e+3',
    '{"a":[1,true,false,null,"x\\u00e9"]}',
    ' {"a" : {} } ',
  ])
    assert.equal(goJsonSyntaxError(Buffer.from(input)), undefined, input);
});
