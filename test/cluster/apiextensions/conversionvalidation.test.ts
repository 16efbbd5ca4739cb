/**
 * A CRD's spec.conversion is validated and defaulted as kube-apiserver 1.36 does it: each case's
 * message is the one the real apiserver gave for the same CRD (server-side dry run).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../../../src/cluster/cluster';
import { StatusError } from '../../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';

function crd(conversion: unknown): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', kind: 'Gadget' },
      ...(conversion === undefined ? {} : { conversion }),
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object' } },
        },
        {
          name: 'v2',
          served: true,
          storage: false,
          schema: { openAPIV3Schema: { type: 'object' } },
        },
      ],
    },
  } as unknown as KubeObject;
}

function refusal(conversion: unknown): string {
  try {
    new Cluster().create(crd(conversion), { dryRun: true });
  } catch (err) {
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 422);
    return err.message;
  }
  assert.fail('the CRD was accepted');
}

const PREFIX =
  'CustomResourceDefinition.apiextensions.k8s.io "gadgets.stable.example.com" is invalid: ';
const url = (u: string) => ({ url: u });

describe('CRD spec.conversion validation', () => {
  it('defaults a missing conversion to strategy None and a service port to 443', () => {
    const c = new Cluster();
    const none = c.create(crd(undefined), { dryRun: true });
    assert.deepEqual((none.spec as Record<string, unknown>).conversion, { strategy: 'None' });
    const svc = c.create(
      crd({
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: { service: { namespace: 'a', name: 'b' } },
        },
      }),
      { dryRun: true },
    );
    assert.deepEqual((svc.spec as { conversion: unknown }).conversion, {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { service: { namespace: 'a', name: 'b', port: 443 } },
      },
    });
  });

  it('requires a client config and review versions for Webhook', () => {
    assert.equal(
      refusal({ strategy: 'Webhook' }),
      PREFIX +
        '[spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook, spec.conversion.conversionReviewVersions: Required value]',
    );
    assert.equal(
      refusal({ strategy: 'Webhook', webhook: { clientConfig: url('https://x.example/c') } }),
      PREFIX + 'spec.conversion.conversionReviewVersions: Required value',
    );
    assert.equal(
      refusal({
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1'], clientConfig: {} },
      }),
      PREFIX +
        'spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required',
    );
    assert.equal(
      refusal({
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: { url: 'https://x.example/c', service: { namespace: 'a', name: 'b' } },
        },
      }),
      PREFIX +
        'spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required',
    );
  });

  it('wants a review version it speaks, without duplicates', () => {
    assert.equal(
      refusal({
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v3'], clientConfig: url('https://x.example/c') },
      }),
      PREFIX +
        'spec.conversion.conversionReviewVersions: Invalid value: ["v3"]: must include at least one of v1, v1beta1',
    );
    assert.equal(
      refusal({
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1', 'v1'],
          clientConfig: url('https://x.example/c?a=b'),
        },
      }),
      PREFIX +
        '[spec.conversion.webhookClientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL, spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version]',
    );
  });

  it('checks the URL as the webhook client validation does', () => {
    const hook = (u: string) => ({
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: url(u) },
    });
    assert.equal(
      refusal(hook('http://x.example/c')),
      PREFIX +
        `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    );
    assert.equal(
      refusal(hook('https://x.example/c#f')),
      PREFIX +
        'spec.conversion.webhookClientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
    );
  });

  it('forbids a webhook under None and refuses an unknown strategy', () => {
    assert.equal(
      refusal({
        strategy: 'None',
        webhook: { conversionReviewVersions: ['v1'], clientConfig: url('https://x.example/c') },
      }),
      PREFIX +
        '[spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook, spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook]',
    );
    assert.equal(
      refusal({ strategy: 'Foo' }),
      PREFIX +
        'spec.conversion.strategy: Unsupported value: "Foo": supported values: "None", "Webhook"',
    );
  });

  it('refuses a caBundle that is no certificate when a CRD is updated', () => {
    const c = new Cluster();
    const hook = (caBundle?: string) => ({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { url: 'https://x.example/c', ...(caBundle ? { caBundle } : {}) },
      },
    });
    const created = c.create(crd(hook()));
    const bad = Buffer.from(
      '-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIBADAK\n-----END CERTIFICATE-----\n',
    ).toString('base64');
    const next = crd(hook(bad));
    next.metadata.resourceVersion = created.metadata.resourceVersion;
    assert.throws(
      () => c.update(next),
      (err: Error) =>
        err.message ===
        PREFIX +
          `spec.conversion.webhookClientConfig.caBundle: Invalid value: "${bad}": unable to load root certificates: failed to parse certificate: x509: malformed certificate`,
    );
  });
});
