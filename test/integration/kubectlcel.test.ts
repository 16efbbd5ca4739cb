/**
 * kubectl against CRD validation rules: the sample operator's CRD (as controller-gen writes it from
 * its XValidation marker) refuses a WebApp, and a CRD whose rule does not compile is refused, with
 * the messages kubectl prints against kube-apiserver.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, kubectl, ok, serve } from './serve';
import type { Served } from './serve';

let s: Served;
before(async () => {
  s = await serve();
  const crd = join(ROOT, 'samples/quota-operator/config/crd/bases/apps.example.com_webapps.yaml');
  await ok(s.kubeconfig, ['apply', '-f', crd]);
});
after(async () => {
  await s?.stop();
});

const webApp = (image: string) =>
  `apiVersion: apps.example.com/v1\nkind: WebApp\nmetadata: {name: shop}\nspec: {image: ${JSON.stringify(image)}}\n`;

test('kubectl apply of a WebApp breaking the XValidation rule prints the rule message', async () => {
  const r = await kubectl(s.kubeconfig, ['apply', '-f', '-'], webApp(' nginx:1.27'));
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /The WebApp "shop" is invalid: spec\.image: Invalid value: " nginx:1\.27": image must not have leading or trailing whitespace/,
  );
  await ok(s.kubeconfig, ['apply', '-f', '-'], webApp('nginx:1.27'));
});

test('kubectl apply of a CRD whose rule does not compile is refused', async () => {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.replicas > 0
            properties:
              size: {type: integer}
`;
  const r = await kubectl(s.kubeconfig, ['apply', '-f', '-'], crd);
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /The CustomResourceDefinition "gadgets\.example\.com" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: \{"Rule":"self\.replicas \\u003e 0".*compilation failed: ERROR: <input>:1:5: undefined field 'replicas'/s,
  );
});
