/**
 * The ConversionReview the apiserver sends and its checks of the answer (webhook_converter.go),
 * without a network: the review's version chosen from the CRD's list, a v1beta1 answer's looser
 * checks, and what restoreObjectMeta keeps of the webhook's metadata.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkConverted,
  conversionReview,
  convertedObjectsOf,
} from '../../../src/cluster/apiextensions/conversion';

const original = {
  apiVersion: 'stable.example.com/v1',
  kind: 'Widget',
  metadata: {
    name: 'w',
    namespace: 'default',
    uid: 'u1',
    generation: 3,
    labels: { a: '1' },
    annotations: { keep: 'me' },
  },
  spec: { host: 'h' },
};

describe('ConversionReview', () => {
  it('is sent in the first review version the CRD lists that the apiserver speaks', () => {
    const r = conversionReview(['v2', 'v1beta1', 'v1'], [original], 'stable.example.com/v2', 'x');
    assert.equal(r.apiVersion, 'apiextensions.k8s.io/v1beta1');
    assert.deepEqual(r.request, {
      uid: 'x',
      desiredAPIVersion: 'stable.example.com/v2',
      objects: [original],
    });
    assert.throws(
      () => conversionReview(['v3'], [original], 'stable.example.com/v2', 'x'),
      /^Error: no supported conversion review versions$/,
    );
  });

  it('checks the uid of a v1 answer, not of a v1beta1 one', () => {
    const answer = (v: string) => ({
      apiVersion: `apiextensions.k8s.io/${v}`,
      kind: 'ConversionReview',
      response: { uid: 'other', convertedObjects: [{}], result: { status: 'Success' } },
    });
    assert.throws(
      () => convertedObjectsOf('v1', 'mine', answer('v1')),
      /^Error: expected response.uid="mine", got "other"$/,
    );
    assert.equal(convertedObjectsOf('v1beta1', 'mine', answer('v1beta1')).length, 1);
    assert.throws(
      () => convertedObjectsOf('v1', 'mine', { apiVersion: 'v1', kind: 'Status' }),
      /^Error: no kind "Status" is registered for version "v1" in scheme "pkg\/runtime\/scheme.go:111"$/,
    );
  });

  it('keeps the webhook labels and annotations and the original rest of metadata', () => {
    const out = checkConverted(original, 'stable.example.com/v2', [
      {
        apiVersion: 'stable.example.com/v2',
        kind: 'Widget',
        metadata: {
          name: 'w',
          namespace: 'default',
          uid: 'u1',
          generation: 9,
          labels: { b: '2' },
          ownerReferences: [{ name: 'x' }],
        },
        spec: { hostname: 'h' },
      },
    ]);
    assert.deepEqual(out.metadata, {
      name: 'w',
      namespace: 'default',
      uid: 'u1',
      generation: 3,
      labels: { b: '2' },
    });
    assert.deepEqual(out.spec, { hostname: 'h' });
  });

  it('validates changed annotations under the path the apiserver names (metadata.annotation)', () => {
    assert.throws(
      () =>
        checkConverted(original, 'stable.example.com/v2', [
          {
            ...original,
            apiVersion: 'stable.example.com/v2',
            metadata: { ...original.metadata, annotations: { 'bad key!': 'v' } },
          },
        ]),
      (err: Error) =>
        err.message.startsWith(
          'conversion webhook for stable.example.com/v1, Kind=Widget returned invalid metadata: metadata.annotation: Invalid value: "bad key!": name part must consist of',
        ),
    );
  });

  it('refuses a converted object without metadata as a different name', () => {
    assert.throws(
      () =>
        checkConverted(original, 'stable.example.com/v2', [
          { apiVersion: 'stable.example.com/v2', kind: 'Widget', spec: {} },
        ]),
      /returned invalid object: must have the same name: w != $/,
    );
  });
});
