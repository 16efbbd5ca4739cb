/**
 * Validation ported from pkg/apis/{networking,discovery,autoscaling,core,admissionregistration}/
 * validation: each message is the one a real kube-apiserver 1.36.3 answered to the same body in
 * the differential suite (`npm run test:differential -- --filter validation`, scenarios in
 * test/differential/scenarios/validation.yaml and the matrix's field-validation).
 */
import { test } from 'node:test';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { expectInvalid, newCluster } from '../helpers';

const refused = expectInvalid;

function accepted(obj: KubeObject): void {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(obj);
  cluster.close();
}

const NS = { namespace: 'default' };

test('an Ingress needs a default backend or rules', () =>
  refused(
    { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'x', ...NS } },
    'Ingress.networking.k8s.io "x" is invalid: spec: Invalid value: null: either `defaultBackend` or `rules` must be specified',
  ));

// Two rules of the validation/ingress-path-rules and ingress-backends scenarios, in one body.
test("an Ingress rule's path must be absolute for Prefix, and a backend needs a port", () =>
  refused(
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'x', ...NS },
      spec: {
        rules: [
          {
            host: 'example.com',
            http: {
              paths: [
                {
                  path: 'a',
                  pathType: 'Prefix',
                  backend: { service: { name: 'web', port: { number: 80 } } },
                },
                { path: '/b', pathType: 'Prefix', backend: { service: { name: 'web' } } },
              ],
            },
          },
        ],
      },
    },
    'Ingress.networking.k8s.io "x" is invalid: [spec.rules[0].http.paths[0].path: Invalid value: "a": must be an absolute path, spec.rules[0].http.paths[1].backend: Required value: port name or number is required]',
  ));

test('a wildcard host with a Service backend by port name is a valid Ingress', () =>
  accepted({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'x', ...NS },
    spec: {
      rules: [
        {
          host: '*.example.com',
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 'web', port: { name: 'http' } } },
              },
            ],
          },
        },
      ],
      tls: [{ hosts: ['*.example.com'], secretName: 'tls' }],
    },
  }));

test("an IngressClass's controller is a domain-prefixed path, its parameters' scope Cluster or Namespace", () => {
  refused(
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'c-diff-851' },
      spec: { controller: 'nodomain', parameters: { kind: 'K', name: 'n' } },
    },
    'IngressClass.networking.k8s.io "c-diff-851" is invalid: spec.controller: Invalid value: "nodomain": must be a domain-prefixed path (such as "acme.io/foo")',
  );
  refused(
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'f-diff-851' },
      spec: {
        controller: 'example.com/c',
        parameters: { kind: 'K', name: 'n', scope: 'Everywhere' },
      },
    },
    'IngressClass.networking.k8s.io "f-diff-851" is invalid: spec.parameters.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespace"',
  );
});

test("an EndpointSlice's address type is IPv4, IPv6 or FQDN", () =>
  refused(
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'h', ...NS },
      addressType: 'Carrier',
    },
    'EndpointSlice.discovery.k8s.io "h" is invalid: addressType: Unsupported value: "Carrier": supported values: "FQDN", "IPv4", "IPv6"',
  ));

test("an IPv6 EndpointSlice's addresses are IPv6, canonical and not link-local", () =>
  refused(
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'f', ...NS },
      addressType: 'IPv6',
      endpoints: [
        { addresses: ['2001:0db8::1', '10.0.0.1', '::ffff:10.0.0.1', 'fe80::1', '2001:db8::2'] },
      ],
    },
    'EndpointSlice.discovery.k8s.io "f" is invalid: [endpoints[0].addresses[0]: Invalid value: "2001:0db8::1": must be in canonical form ("2001:db8::1"), endpoints[0].addresses: Invalid value: "10.0.0.1": must be an IPv6 address, endpoints[0].addresses[2]: Invalid value: "::ffff:10.0.0.1": must not be an IPv4-mapped IPv6 address, endpoints[0].addresses[3]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)]',
  ));

test("a HorizontalPodAutoscaler's maxReplicas is at least its minReplicas", () =>
  refused(
    {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'i', ...NS },
      spec: {
        minReplicas: 3,
        maxReplicas: 2,
        scaleTargetRef: { kind: 'ReplicationController', name: 'rc', apiVersion: 'v1' },
      },
    },
    'HorizontalPodAutoscaler.autoscaling "i" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
  ));

// Go decodes `policies: []` as an empty list, not nil: the defaulter keeps it and validation
// refuses it; only an absent list is defaulted (encoding drops the empty one afterwards).
test("an HPA's scaling rules with an empty policy list are refused, not defaulted", () => {
  const hpa = (scaleDown: Record<string, unknown>): KubeObject => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'h', ...NS },
    spec: {
      maxReplicas: 2,
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      behavior: { scaleDown },
    },
  });
  refused(
    hpa({ policies: [] }),
    'HorizontalPodAutoscaler.autoscaling "h" is invalid: spec.behavior.scaleDown.policies: Required value: must specify at least one Policy',
  );
  accepted(hpa({ stabilizationWindowSeconds: 10 }));
});

test("a core Event's involved object is in the Event's namespace", () =>
  refused(
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e1', ...NS },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' },
      reason: 'Started',
    },
    'Event "e1" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
  ));

test('an events.k8s.io Event needs an eventTime, and is refused as a core Event', () =>
  refused(
    {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e4', ...NS },
      regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'Created',
      type: 'Normal',
    },
    'Event "e4" is invalid: eventTime: Required value',
  ));

test('a local PersistentVolume needs node affinity and a path without ..', () =>
  refused(
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'b-diff-857' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        capacity: { storage: '1Gi' },
        local: { path: '/mnt/../etc' },
      },
    },
    'PersistentVolume "b-diff-857" is invalid: [spec.local.path: Invalid value: "/mnt/../etc": must not contain \'..\', spec.nodeAffinity: Required value: Local volume requires node affinity]',
  ));

test('an NFS PersistentVolume names its server and an absolute path; flexVolume is counted but not checked', () =>
  refused(
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'd-diff-857' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        capacity: { storage: '1Gi' },
        nfs: { path: 'relative' },
        flexVolume: { driver: 'example.com/flex' },
      },
    },
    'PersistentVolume "d-diff-857" is invalid: [spec.nfs.server: Required value, spec.nfs.path: Invalid value: "relative": must be an absolute path]',
  ));

test('a ValidatingAdmissionPolicy matches something and validates something', () =>
  refused(
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'x' },
    },
    'ValidatingAdmissionPolicy.admissionregistration.k8s.io "x" is invalid: [spec.matchConstraints: Required value, spec.validations: Required value: validations or auditAnnotations must contain at least one item, spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item]',
  ));
