/**
 * CertificateSigningRequests over HTTP, as kube-apiserver's CSR registry answers them: created
 * with the requester recorded, approved or denied only through /approval, the certificate set
 * only through /status.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_USER } from '../../../src/cluster/endpoints/server';
import { served, type Served } from '../http';
import { csrRequest } from '../pkcs10';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
type Obj = Record<string, unknown>;

const csr = (name: string, request = csrRequest()) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { signerName: 'example.com/signer', request, usages: ['client auth'] },
});
const withConditions = (name: string, conditions: Obj[], extra: Obj = {}) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  status: { conditions, ...extra },
});
const call = async (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => {
  const r = await s.call(method, path, body, headers);
  return { status: r.status, body: JSON.parse(r.body) as Obj };
};
const statusOf = (o: Obj) => o.status as { conditions?: Obj[]; certificate?: string };

describe('CertificateSigningRequest', () => {
  it('records who asked and starts with an empty status, whatever the request said', async () => {
    const r = await call('POST', CSRS, {
      ...csr('created'),
      spec: { ...csr('created').spec, username: 'someone-else', groups: ['system:masters'] },
      status: { conditions: [{ type: 'Approved', status: 'True' }] },
    });
    assert.equal(r.status, 201);
    const spec = r.body.spec as Obj;
    assert.equal(spec.username, DEFAULT_USER);
    assert.deepEqual(spec.groups, ['system:authenticated']);
    assert.deepEqual(r.body.status, {});
  });

  it('refuses a request whose signature does not verify, and unknown or repeated usages', async () => {
    const r = await call('POST', CSRS, {
      ...csr('bad', csrRequest(true)),
      spec: {
        ...csr('bad', csrRequest(true)).spec,
        usages: ['client auth', 'client auth', 'bogus'],
      },
    });
    assert.equal(r.status, 422);
    const causes = (r.body.details as { causes: Obj[] }).causes;
    assert.deepEqual(
      causes.map((c) => [c.field, c.reason]),
      [
        ['spec.request', 'FieldValueInvalid'],
        ['spec.usages[2]', 'FieldValueNotSupported'],
        ['spec.usages[1]', 'FieldValueDuplicate'],
      ],
    );
    assert.match(String(causes[0]!.message), /: x509: ECDSA verification failure$/);
  });

  it('is approved through /approval (PUT), which stamps the condition and keeps the rest', async () => {
    await call('POST', CSRS, csr('approved'));
    const r = await call(
      'PUT',
      `${CSRS}/approved/approval`,
      withConditions('approved', [{ type: 'Approved', status: 'True', reason: 'Ok' }]),
    );
    assert.equal(r.status, 200);
    const [c] = statusOf(r.body).conditions!;
    assert.equal(c!.type, 'Approved');
    assert.equal(c!.reason, 'Ok');
    assert.equal(c!.lastUpdateTime, c!.lastTransitionTime);
    assert.equal((r.body.spec as Obj).signerName, 'example.com/signer');
    const got = await call('GET', `${CSRS}/approved`);
    assert.deepEqual(statusOf(got.body).conditions, statusOf(r.body).conditions);
  });

  it('is denied through /approval with a merge patch', async () => {
    await call('POST', CSRS, csr('denied'));
    const r = await call(
      'PATCH',
      `${CSRS}/denied/approval`,
      { status: { conditions: [{ type: 'Denied', status: 'True' }] } },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(r.status, 200);
    assert.equal(statusOf(r.body).conditions![0]!.type, 'Denied');
  });

  it('refuses Approved with Denied, a False approval, and taking an approval back', async () => {
    await call('POST', CSRS, csr('strict'));
    const both = await call(
      'PUT',
      `${CSRS}/strict/approval`,
      withConditions('strict', [
        { type: 'Approved', status: 'True' },
        { type: 'Denied', status: 'True' },
      ]),
    );
    assert.equal(both.status, 422);
    assert.equal(
      both.body.message,
      'CertificateSigningRequest.certificates.k8s.io "strict" is invalid: status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    );
    const falsy = await call(
      'PUT',
      `${CSRS}/strict/approval`,
      withConditions('strict', [{ type: 'Approved', status: 'False' }]),
    );
    assert.equal(
      falsy.body.message,
      'CertificateSigningRequest.certificates.k8s.io "strict" is invalid: status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    );
    await call(
      'PUT',
      `${CSRS}/strict/approval`,
      withConditions('strict', [{ type: 'Approved', status: 'True' }]),
    );
    const removed = await call('PUT', `${CSRS}/strict/approval`, withConditions('strict', []));
    assert.equal(
      removed.body.message,
      'CertificateSigningRequest.certificates.k8s.io "strict" is invalid: status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    );
  });

  it('may not be approved through /status, nor through the object itself (which keeps its status)', async () => {
    await call('POST', CSRS, csr('sideways'));
    const viaStatus = await call(
      'PUT',
      `${CSRS}/sideways/status`,
      withConditions('sideways', [{ type: 'Approved', status: 'True' }]),
    );
    assert.equal(viaStatus.status, 422);
    assert.equal(
      viaStatus.body.message,
      'CertificateSigningRequest.certificates.k8s.io "sideways" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"',
    );
    const viaObject = await call('PUT', `${CSRS}/sideways`, {
      ...withConditions('sideways', [{ type: 'Approved', status: 'True' }]),
      metadata: { name: 'sideways', labels: { a: 'b' } },
    });
    assert.equal(viaObject.status, 200);
    assert.deepEqual(viaObject.body.status, {});
    assert.deepEqual((viaObject.body.metadata as Obj).labels, { a: 'b' });
  });

  it('takes a certificate only through /status, and only CERTIFICATE PEM blocks', async () => {
    await call('POST', CSRS, csr('issued'));
    const cert = Buffer.from('not pem').toString('base64');
    const viaApproval = await call(
      'PUT',
      `${CSRS}/issued/approval`,
      withConditions('issued', [], { certificate: cert }),
    );
    // The approval strategy keeps the stored status but its conditions: the certificate is dropped.
    assert.equal(viaApproval.status, 200);
    assert.equal(statusOf(viaApproval.body).certificate, undefined);
    const viaStatus = await call(
      'PUT',
      `${CSRS}/issued/status`,
      withConditions('issued', [], { certificate: cert }),
    );
    assert.equal(
      viaStatus.body.message,
      'CertificateSigningRequest.certificates.k8s.io "issued" is invalid: status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
    );
  });
});
