/**
 * certificates.k8s.io CertificateSigningRequests, as kubernetes
 * `pkg/registry/certificates/certificates/strategy.go` and `pkg/apis/certificates/validation`
 * treat them: a create records who asked (spec.username, uid, groups, extra) and starts with an
 * empty status; the main resource changes neither spec nor status; `/status` may set the
 * certificate and conditions other than Approved and Denied; `/approval` changes only the
 * conditions (Approved, Denied). Each path keeps the Approved, Denied and Failed conditions it
 * may not touch, and stamps new conditions' times.
 */
import { X509Certificate, createPublicKey, verify } from 'node:crypto';
import type { FieldError } from '../apimachinery/errors';
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../apimachinery/errors';
import { validateName } from '../apimachinery/names';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import type { UserInfo } from '../auth/user';

type Obj = Record<string, unknown>;
type Condition = Obj & { type?: string; status?: string };

const rec = (v: unknown): Obj => (isObject(v) ? v : {});

/** certificates.LegacyUnknownSignerName: v1beta1's default, refused by v1. */
const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

/** allValidUsages, sorted as sets.String.List() prints them. */
const VALID_USAGES = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];

/** Conditions that may only be True (trueConditionTypes). */
const TRUE_ONLY = new Set(['Approved', 'Denied', 'Failed']);

/** PrepareForCreate: the requesting user recorded, the status emptied. */
export function prepareCsrForCreate(obj: KubeObject, user: UserInfo | undefined): void {
  const spec = rec(obj.spec);
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (user) {
    if (user.username) spec.username = user.username;
    if (user.uid) spec.uid = user.uid;
    if (user.groups.length) spec.groups = [...user.groups];
    if (user.extra && Object.keys(user.extra).length) spec.extra = structuredClone(user.extra);
  }
  obj.spec = spec;
  // Status{Conditions: []} written with omitempty: an empty object.
  obj.status = {};
}

/**
 * PrepareForUpdate of the strategy `subresource` names; `now` stamps the conditions. The main
 * resource keeps spec and status; /status keeps spec and the instances of Approved and Denied;
 * /approval keeps everything but the conditions.
 */
export function prepareCsrForUpdate(
  next: KubeObject,
  old: KubeObject,
  subresource: string,
  now: string,
): void {
  const n = next as Obj;
  const o = old as Obj;
  if (subresource === 'status') {
    n.spec = structuredClone(o.spec);
    const status = rec(n.status);
    preserveConditionInstances(status, rec(o.status), 'Approved');
    preserveConditionInstances(status, rec(o.status), 'Denied');
    n.status = status;
    populateConditionTimestamps(status, rec(o.status), now);
    return;
  }
  if (subresource === 'approval') {
    const status = rec(n.status);
    populateConditionTimestamps(status, rec(o.status), now);
    n.spec = structuredClone(o.spec);
    const kept = structuredClone(rec(o.status));
    if (Array.isArray(status.conditions) && status.conditions.length)
      kept.conditions = status.conditions;
    else delete kept.conditions;
    n.status = kept;
    return;
  }
  n.spec = structuredClone(o.spec);
  if (o.status === undefined) delete n.status;
  else n.status = structuredClone(o.status);
}

function conditionsOf(status: Obj): Condition[] {
  return Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
}

/** preserveConditionInstances: when the count of `type` is unchanged, the old ones stay. */
function preserveConditionInstances(status: Obj, old: Obj, type: string): void {
  const oldList = conditionsOf(old);
  const newList = conditionsOf(status);
  const oldIdx = indicesOf(oldList, type);
  const newIdx = indicesOf(newList, type);
  if (oldIdx.length !== newIdx.length) return;
  oldIdx.forEach((oi, i) => (newList[newIdx[i]!] = structuredClone(oldList[oi]!)));
}

function indicesOf(list: Condition[], type: string): number[] {
  return list.flatMap((c, i) => (c.type === type ? [i] : []));
}

/**
 * populateConditionTimestamps: a condition without lastUpdateTime gets now; one without
 * lastTransitionTime keeps the old condition's of the same type and status, else now.
 */
function populateConditionTimestamps(status: Obj, old: Obj, now: string): void {
  for (const c of conditionsOf(status)) {
    if (!isObject(c)) continue;
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const same = conditionsOf(old).find(
        (o) => o.type === c.type && o.status === c.status && !!o.lastTransitionTime,
      );
      c.lastTransitionTime = same ? same.lastTransitionTime : now;
    }
  }
}

/** What getValidationOptions allows for this write. */
interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

/**
 * ValidateCertificateSigningRequestCreate, or (with `old`) the update validation of the path
 * `subresource` names: the approval path may set Approved and Denied, the status path the
 * certificate.
 */
export function validateCsr(obj: KubeObject, old?: KubeObject, subresource = ''): FieldError[] {
  const opts = validationOptions(obj, old);
  opts.allowSettingApprovalConditions = subresource === 'approval';
  opts.allowSettingCertificate = subresource === 'status';
  const errs = validateCsrFields(obj, opts);
  if (!old) return errs;
  const oldStatus = rec((old as Obj).status);
  const newStatus = rec((obj as Obj).status);
  for (const type of ['Approved', 'Denied', 'Failed']) {
    const before = conditionsOf(oldStatus).filter((c) => c.type === type);
    const after = conditionsOf(newStatus).filter((c) => c.type === type);
    if (after.length < before.length)
      errs.push(
        fieldForbidden('status.conditions', `updates may not remove a condition of type "${type}"`),
      );
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const type of ['Approved', 'Denied']) {
      const before = conditionsOf(oldStatus).filter((c) => c.type === type);
      const after = conditionsOf(newStatus).filter((c) => c.type === type);
      if (after.length > before.length)
        errs.push(
          fieldForbidden('status.conditions', `updates may not add a condition of type "${type}"`),
        );
      else if (after.length === before.length && !deepEqual(before, after))
        // Upstream appends a diff of the two lists to this message.
        errs.push(
          fieldForbidden(
            'status.conditions',
            `updates may not modify a condition of type "${type}"`,
          ),
        );
    }
  }
  const cert = newStatus.certificate ?? '';
  const oldCert = oldStatus.certificate ?? '';
  if (cert !== oldCert) {
    if (!opts.allowSettingCertificate)
      errs.push(fieldForbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert !== '')
      errs.push(
        fieldForbidden('status.certificate', 'updates may not modify existing certificate content'),
      );
  }
  return errs;
}

/** getValidationOptions: what existing data is tolerated, to keep old objects updatable. */
function validationOptions(obj: KubeObject, old: KubeObject | undefined): Options {
  const oldSpec = rec(old?.spec);
  const oldStatus = rec((old as Obj | undefined)?.status);
  const oldTypes = conditionsOf(oldStatus).map((c) => c.type ?? '');
  const oldUsages = Array.isArray(oldSpec.usages) ? (oldSpec.usages as unknown[]) : [];
  const cert = rec((obj as Obj).status).certificate;
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied:
      !!old && oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    allowLegacySignerName: !!old && oldSpec.signerName === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: !!old && new Set(oldTypes).size !== oldTypes.length,
    allowEmptyConditionType: !!old && oldTypes.includes(''),
    allowArbitraryCertificate:
      !!old &&
      ((cert ?? '') === (oldStatus.certificate ?? '') ||
        certificateError(oldStatus.certificate) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !VALID_USAGES.includes(String(u))),
    allowDuplicateUsages: new Set(oldUsages).size !== oldUsages.length,
  };
}

/** validateCertificateSigningRequest, less the ObjectMeta (validated for every kind). */
function validateCsrFields(obj: KubeObject, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(obj.spec);
  const request = typeof spec.request === 'string' ? spec.request : '';
  const requestError = csrError(request);
  if (requestError !== undefined)
    // A []byte's value as field.Invalid prints it: a missing one (absent, or null as the decoded
    // object's Go shape writes a nil slice) is `null`.
    errs.push(fieldInvalid('spec.request', spec.request == null ? null : request, requestError));
  const usages = Array.isArray(spec.usages) ? (spec.usages as unknown[]) : [];
  if (usages.length === 0) errs.push(fieldRequired('spec.usages'));
  if (!opts.allowUnknownUsages)
    usages.forEach((u, i) => {
      if (!VALID_USAGES.includes(String(u)))
        errs.push(fieldNotSupported(`spec.usages[${i}]`, u, VALID_USAGES));
    });
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<unknown>();
    usages.forEach((u, i) => {
      if (seen.has(u))
        errs.push({
          type: 'FieldValueDuplicate',
          field: `spec.usages[${i}]`,
          message: `Duplicate value: ${JSON.stringify(u)}`,
        });
      seen.add(u);
    });
  }
  const signerName = typeof spec.signerName === 'string' ? spec.signerName : '';
  if (!opts.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER)
    errs.push(
      fieldInvalid(
        'spec.signerName',
        signerName,
        'the legacy signerName is not allowed via this API version',
      ),
    );
  else errs.push(...validateSignerName('spec.signerName', signerName));
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600)
    errs.push(
      fieldInvalid(
        'spec.expirationSeconds',
        spec.expirationSeconds,
        'may not specify a duration less than 600 seconds (10 minutes)',
      ),
    );
  errs.push(...validateConditions(rec((obj as Obj).status), opts));
  if (!opts.allowArbitraryCertificate) {
    const e = certificateError(rec((obj as Obj).status).certificate);
    if (e !== undefined) errs.push(fieldInvalid('status.certificate', '<certificate data>', e));
  }
  return errs;
}

function validateConditions(status: Obj, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'status.conditions';
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(status).forEach((c, i) => {
    const type = c.type ?? '';
    if (!opts.allowEmptyConditionType && type === '')
      errs.push(fieldRequired(`${path}[${i}].type`));
    const allowed = TRUE_ONLY.has(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!c.status) errs.push(fieldRequired(`${path}[${i}].status`));
    else if (!allowed.includes(c.status))
      errs.push(fieldNotSupported(`${path}[${i}].status`, c.status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied)
          errs.push(
            fieldInvalid(path, type, 'Approved and Denied conditions are mutually exclusive'),
          );
      } else if (type === 'Denied') {
        denied = true;
        if (approved)
          errs.push(
            fieldInvalid(path, type, 'Approved and Denied conditions are mutually exclusive'),
          );
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type))
        errs.push({
          type: 'FieldValueDuplicate',
          field: `${path}[${i}].type`,
          message: `Duplicate value: ${JSON.stringify(type)}`,
        });
      seen.add(type);
    }
  });
  return errs;
}

/** apivalidation.ValidateSignerName: `example.com/signer-name`. */
function validateSignerName(path: string, signerName: string): FieldError[] {
  if (signerName === '') return [fieldRequired(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2)
    return [
      fieldInvalid(
        path,
        signerName,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    ];
  const [domain, rest] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253)
    errs.push({
      type: 'FieldValueTooLong',
      field: path,
      message: 'Too long: may not be more than 253 bytes',
    });
  const labels = domain.split('.');
  for (const l of labels) {
    const msgs = validateName(l, 'label');
    if (msgs.length) {
      for (const m of msgs) errs.push(fieldInvalid(path, domain, `validating label "${l}": ${m}`));
      break;
    }
  }
  if (labels.length < 2)
    errs.push(
      fieldInvalid(path, domain, 'should be a domain with at least two segments separated by dots'),
    );
  for (const l of rest.split('.')) {
    const msgs = validateName(l, 'subdomain');
    if (msgs.length) {
      for (const m of msgs) errs.push(fieldInvalid(path, rest, `validating label "${l}": ${m}`));
      break;
    }
  }
  return errs;
}

/** PEM blocks of `text`, as encoding/pem's Decode finds them one after another. */
function pemBlocks(text: string): Array<{ type: string; headers: boolean; der: Buffer }> {
  const out: Array<{ type: string; headers: boolean; der: Buffer }> = [];
  const re = /-----BEGIN ([^-\n]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const body = m[2]!;
    const headers = /^[^\n]*:/.test(body.split('\n')[0] ?? '');
    out.push({ type: m[1]!, headers, der: Buffer.from(body.replace(/\s+/g, ''), 'base64') });
  }
  return out;
}

/**
 * validateCSR: a PEM CERTIFICATE REQUEST whose signature its own public key verifies; undefined
 * when it is one. `request` is the field as JSON carries it (base64).
 */
function csrError(request: string): string | undefined {
  const pem = Buffer.from(request, 'base64').toString('latin1');
  const block = pemBlocks(pem)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST')
    return 'PEM block type must be CERTIFICATE REQUEST';
  const parts = csrParts(block.der);
  if (!parts) return 'x509: malformed certificate request';
  const hash = SIGNATURE_HASHES[parts.algorithm];
  if (hash === undefined) return 'x509: cannot verify signature: algorithm unimplemented';
  try {
    const key = createPublicKey({ key: parts.publicKey, format: 'der', type: 'spki' });
    if (verify(hash, parts.signed, key, parts.signature)) return undefined;
    return key.asymmetricKeyType === 'ec'
      ? 'x509: ECDSA verification failure'
      : key.asymmetricKeyType === 'ed25519'
        ? 'x509: Ed25519 verification failure'
        : 'crypto/rsa: verification error';
  } catch {
    return 'x509: malformed certificate request';
  }
}

/** Signature algorithms (their OIDs' DER content, hex) and the hash node verifies them with. */
const SIGNATURE_HASHES: Record<string, string | null> = {
  '2a864886f70d010105': 'sha1', // sha1WithRSAEncryption
  '2a864886f70d01010b': 'sha256', // sha256WithRSAEncryption
  '2a864886f70d01010c': 'sha384',
  '2a864886f70d01010d': 'sha512',
  '2a8648ce3d040302': 'sha256', // ecdsa-with-SHA256
  '2a8648ce3d040303': 'sha384',
  '2a8648ce3d040304': 'sha512',
  '2b6570': null, // Ed25519 signs the message itself
};

/**
 * The pieces of a PKCS#10 CertificationRequest (RFC 2986) a signature check needs:
 * SEQUENCE { info SEQUENCE { version, subject, subjectPKInfo, [0] attributes },
 * signatureAlgorithm SEQUENCE { OID, ... }, signature BIT STRING }. Undefined when the DER is not
 * that shape.
 */
function csrParts(
  der: Buffer,
): { signed: Buffer; publicKey: Buffer; algorithm: string; signature: Buffer } | undefined {
  const outer = element(der, 0);
  if (!outer || outer.tag !== 0x30 || outer.end !== der.length) return undefined;
  const info = element(der, outer.content);
  if (!info || info.tag !== 0x30) return undefined;
  const version = element(der, info.content);
  const subject = version && element(der, version.end);
  const spki = subject && element(der, subject.end);
  if (!spki || spki.tag !== 0x30) return undefined;
  const alg = element(der, info.end);
  const oid = alg && element(der, alg.content);
  const sig = alg && element(der, alg.end);
  if (!alg || !oid || oid.tag !== 0x06 || !sig || sig.tag !== 0x03) return undefined;
  return {
    signed: der.subarray(info.start, info.end),
    publicKey: der.subarray(spki.start, spki.end),
    algorithm: der.subarray(oid.content, oid.end).toString('hex'),
    // A BIT STRING's first content octet counts its unused bits.
    signature: der.subarray(sig.content + 1, sig.end),
  };
}

/** The DER element at `at`: its tag, where its content starts and where it ends. */
function element(
  der: Buffer,
  at: number,
): { tag: number; start: number; content: number; end: number } | undefined {
  if (at + 2 > der.length) return undefined;
  const tag = der[at]!;
  const first = der[at + 1]!;
  let len = first;
  let content = at + 2;
  if (first & 0x80) {
    const n = first & 0x7f;
    if (n === 0 || n > 4 || content + n > der.length) return undefined;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[content + i]!;
    content += n;
  }
  const end = content + len;
  return end > der.length ? undefined : { tag, start: at, content, end };
}

/** validateCertificate: status.certificate, when set, is CERTIFICATE PEM blocks and nothing else. */
function certificateError(certificate: unknown): string | undefined {
  if (typeof certificate !== 'string' || certificate === '') return undefined;
  const blocks = pemBlocks(Buffer.from(certificate, 'base64').toString('latin1'));
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE')
      return `only CERTIFICATE PEM blocks are allowed, found "${b.type}"`;
    if (b.headers) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(b.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  return undefined;
}
