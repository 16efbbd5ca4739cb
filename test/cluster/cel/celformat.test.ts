import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAllTrue, evalCel } from '../cel';

test('format.<name>().validate is none for a valid string and the apimachinery messages otherwise', () => {
  assertAllTrue([
    "!format.dns1123Label().validate('my-label').hasValue() && format.dns1123Label().validate('My_Label').hasValue()",
    "!format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue() && !format.dns1035Label().validate('abc-123').hasValue()",
    "format.dns1035Label().validate('1abc').hasValue() && !format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()",
    "!format.dns1123LabelPrefix().validate('my-prefix-').hasValue() && format.dns1123Label().validate('my-prefix-').hasValue()",
    "!format.labelValue().validate('').hasValue() && !format.uri().validate('http://example.com').hasValue()",
    "!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue() && format.uuid().validate('123').hasValue()",
    "!format.byte().validate('aGVsbG8=').hasValue() && format.byte().validate('aGVsbG8').hasValue() && format.byte().validate('').hasValue()",
    "!format.uuid().validate('123e4567e89b-12d3-a456426614174000').hasValue()",
    "!format.date().validate('2021-01-01').hasValue() && format.date().validate('2021-02-30').hasValue()",
    "!format.datetime().validate('2021-01-01T00:00:00Z').hasValue() && format.datetime().validate('2021-01-01').hasValue()",
    "format.datetime().validate('2021-01-01 00:00:00Z').hasValue() && !format.datetime().validate('2021-01-01t10:00:00.5+02:00').hasValue()",
    "format.named('dns1123Label').hasValue() && !format.named('nope').hasValue()",
    "format.named('uuid').value().validate('x').value() == ['does not match the UUID format']",
  ]);
});

test('a format error list carries every apimachinery message in order', () => {
  const list = evalCel(
    `format.dns1123Label().validate('${'X'.repeat(64)}').value()`,
  ) as Iterable<string>;
  assert.deepEqual(
    [...list],
    [
      'must be no more than 63 characters',
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ],
  );
  const qualified = evalCel("format.qualifiedName().validate('/x').value()") as Iterable<string>;
  assert.deepEqual([...qualified], ['prefix part must be non-empty']);
});
