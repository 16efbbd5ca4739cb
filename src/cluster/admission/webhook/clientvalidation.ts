/**
 * Validation of a webhook's client config (k8s.io/apiserver `pkg/util/webhook/validation.go`):
 * the URL (https only, a host, no user information, fragment or query), the Service reference
 * (name, namespace, port, path segments) and the CA bundle as client-go's transport loads it.
 * Used by CRD conversion; the words are the apiserver's.
 */
import { X509Certificate } from 'node:crypto';
import type { FieldError } from '../../apimachinery/errors';
import { RawValue, fieldInvalid, fieldRequired } from '../../apimachinery/errors';
import { validateName } from '../../apimachinery/names';

const FORM = '; desired format: https://host[/path]';

/** The parts of a URL Go's url.Parse splits off, for what ValidateWebhookURL looks at. */
function goUrlParts(raw: string): {
  scheme: string;
  host: string;
  user?: string;
  fragment: string;
  query: string;
} {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    let authority = end >= 0 ? rest.slice(2, end) : rest.slice(2);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    host = authority;
  }
  return { scheme, host, ...(user !== undefined ? { user } : {}), fragment, query };
}

export function validateWebhookURL(field: string, url: string, forceHttps: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const u = goUrlParts(url);
  if (forceHttps && u.scheme !== 'https')
    errs.push(fieldInvalid(field, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (!u.host) errs.push(fieldInvalid(field, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined)
    errs.push(fieldInvalid(field, u.user, 'user information is not permitted in the URL'));
  if (u.fragment)
    errs.push(fieldInvalid(field, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query)
    errs.push(fieldInvalid(field, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

export function validateWebhookService(
  field: string,
  namespace: string,
  name: string,
  path: string | undefined,
  port: number,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!name) errs.push(fieldRequired(`${field}.name`));
  if (!namespace) errs.push(fieldRequired(`${field}.namespace`));
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    errs.push(
      fieldInvalid(
        `${field}.port`,
        port,
        'port is not valid: must be between 1 and 65535, inclusive',
      ),
    );
  if (path === undefined || path === '/' || path === '') return errs;
  if (path === '//') {
    errs.push(fieldInvalid(`${field}.path`, path, 'segment[0] may not be empty'));
    return errs;
  }
  if (!path.startsWith('/'))
    errs.push(fieldInvalid(`${field}.path`, path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) {
      errs.push(fieldInvalid(`${field}.path`, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of validateName(step, 'subdomain'))
      errs.push(fieldInvalid(`${field}.path`, path, `segment[${i}]: ${failure}`));
  });
  return errs;
}

/** A CA bundle as client-go's rootCertPool loads it, with createErrorParsingCAData's words. */
export function validateCABundle(field: string, caBundleBase64: string): FieldError[] {
  const pem = Buffer.from(caBundleBase64, 'base64').toString('latin1');
  const err = caDataError(pem);
  return err
    ? [
        fieldInvalid(
          field,
          new RawValue(JSON.stringify(caBundleBase64)),
          `unable to load root certificates: ${err}`,
        ),
      ]
    : [];
}

function caDataError(pem: string): string | undefined {
  const blocks: Array<{ type: string; headers: boolean; der: Buffer } | undefined> = [];
  let rest = pem;
  while (rest.length > 0) {
    // encoding/pem's Decode: the first BEGIN line anywhere, up to its END line.
    const m = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----[ \t]*\r?\n?/.exec(rest);
    if (!m) {
      blocks.push(undefined);
      break;
    }
    const body = m[2];
    const headers = /^[^\n]*:/.test(body);
    blocks.push({
      type: m[1],
      headers,
      der: Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'),
    });
    rest = rest.slice(m.index + m[0].length);
  }
  // AppendCertsFromPEM succeeds when any certificate parses.
  const parses = (der: Buffer) => {
    try {
      new X509Certificate(der);
      return true;
    } catch {
      return false;
    }
  };
  if (blocks.some((b) => b && b.type === 'CERTIFICATE' && !b.headers && parses(b.der)))
    return undefined;
  for (const b of blocks) {
    if (!b) return 'unable to parse bytes as PEM block';
    if (b.type !== 'CERTIFICATE' || b.headers) continue;
    if (!parses(b.der)) return 'failed to parse certificate: x509: malformed certificate';
  }
  return 'no valid certificate authority data seen';
}
