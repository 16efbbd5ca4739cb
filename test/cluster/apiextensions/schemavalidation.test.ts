import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldError } from '../../../src/cluster/apimachinery/errors';
import type { JSONSchemaProps } from '../../../src/cluster/apiextensions/jsonschema';
import { validateValue } from '../../../src/cluster/apiextensions/schemavalidation';

/** `field: message` of each error validateValue reports for v at path `spec.x`. */
function errors(v: unknown, s: JSONSchemaProps): string[] {
  const errs: FieldError[] = [];
  validateValue(v, s, 'spec.x', errs);
  return errs.map((e) => `${e.field}: ${e.message}`);
}

test('a value of the wrong type stops at the type error, in kube-openapi words', () => {
  assert.deepEqual(errors('3', { type: 'integer', minimum: 5 }), [
    'spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"',
  ]);
  assert.deepEqual(errors(true, { type: 'string' }), [
    'spec.x: Invalid value: "boolean": spec.x in body must be of type string: "boolean"',
  ]);
  assert.deepEqual(errors(1.5, { 'x-kubernetes-int-or-string': true }), [
    'spec.x: Invalid value: "number": spec.x in body must be of type integer,string: "number"',
  ]);
  assert.deepEqual(errors(null, { type: 'string', nullable: true }), []);
  assert.deepEqual(errors(null, { type: 'object' }), [
    'spec.x: Invalid value: "null": spec.x in body must be of type object: "null"',
  ]);
});

test('integer and number bounds and multipleOf', () => {
  assert.deepEqual(errors(7, { type: 'integer', maximum: 5, multipleOf: 2 }), [
    'spec.x: Invalid value: 7: spec.x in body should be less than or equal to 5',
    'spec.x: Invalid value: 7: spec.x in body should be a multiple of 2',
  ]);
  assert.deepEqual(errors(0, { type: 'number', minimum: 0, exclusiveMinimum: true }), [
    'spec.x: Invalid value: 0: spec.x in body should be greater than 0',
  ]);
});

test('string length counts runes, the string checks stop at the first failing one, and enum applies', () => {
  assert.deepEqual(errors('ééé', { type: 'string', maxLength: 3 }), []);
  // kube-openapi's stringValidator returns at its first error: a string too long is not also
  // checked against the pattern (as kube-apiserver answers it).
  assert.deepEqual(errors('ABCD', { type: 'string', maxLength: 3, pattern: '^[a-z]+$' }), [
    'spec.x: Too long: may not be more than 3 bytes',
  ]);
  assert.deepEqual(errors('ABC', { type: 'string', maxLength: 3, pattern: '^[a-z]+$' }), [
    'spec.x: Invalid value: "ABC": spec.x in body should match \'^[a-z]+$\'',
  ]);
  assert.deepEqual(errors('green', { type: 'string', enum: ['red', 'blue'] }), [
    'spec.x: Unsupported value: "green": supported values: "red", "blue"',
  ]);
});

test('array counts, list-type map keys and each item', () => {
  const s: JSONSchemaProps = {
    type: 'array',
    maxItems: 2,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
  };
  assert.deepEqual(
    errors(
      [
        { name: 'a', port: 1 },
        { name: 'a', port: 'x' },
        { name: 'b', port: 2 },
      ],
      s,
    ),
    [
      'spec.x: Too many: 3: must have at most 2 items',
      'spec.x[1]: Duplicate value: {"name":"a"}',
      'spec.x[1].port: Invalid value: "string": spec.x[1].port in body must be of type integer: "string"',
    ],
  );
  assert.deepEqual(errors(['a', 'a'], { type: 'array', 'x-kubernetes-list-type': 'set' }), [
    'spec.x[1]: Duplicate value: "a"',
  ]);
});

test('object required fields, property counts and additionalProperties', () => {
  assert.deepEqual(
    errors(
      { labels: { a: 1 } },
      {
        type: 'object',
        required: ['size'],
        properties: {
          labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 0 },
        },
      },
    ),
    [
      'spec.x.size: Required value',
      'spec.x.labels: Too many: 1: must have at most 0 items',
      'spec.x.labels.a: Invalid value: "integer": spec.x.labels.a in body must be of type string: "integer"',
    ],
  );
});

test('allOf, anyOf, oneOf and not combine their schemas', () => {
  assert.deepEqual(errors(3, { anyOf: [{ type: 'string' }, { type: 'boolean' }] }), [
    'spec.x: Invalid value: 3: spec.x in body must be of type string or boolean',
  ]);
  assert.deepEqual(errors(3, { oneOf: [{ type: 'integer' }, { minimum: 0 }] }), [
    'spec.x: Invalid value: 3: spec.x in body must validate one and only one schema (oneOf)',
  ]);
  assert.deepEqual(errors(3, { not: { type: 'integer' } }), [
    'spec.x: Invalid value: 3: spec.x in body must not validate the schema (not)',
  ]);
  assert.deepEqual(errors(3, { allOf: [{ maximum: 2 }] }), [
    'spec.x: Invalid value: 3: spec.x in body should be less than or equal to 2',
  ]);
});

test('too many items or properties is a TooMany error, too long a string a TooLong one', () => {
  const types = (v: unknown, s: JSONSchemaProps) => {
    const errs: FieldError[] = [];
    validateValue(v, s, 'spec.x', errs);
    return errs.map((e) => e.type);
  };
  assert.deepEqual(types([1, 2], { type: 'array', maxItems: 1 }), ['FieldValueTooMany']);
  assert.deepEqual(types({ a: 1, b: 2 }, { type: 'object', maxProperties: 1 }), [
    'FieldValueTooMany',
  ]);
  assert.deepEqual(types('ab', { type: 'string', maxLength: 1 }), ['FieldValueTooLong']);
});
