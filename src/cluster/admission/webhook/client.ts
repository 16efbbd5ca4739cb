/**
 * The webhook client (k8s.io/apiserver pkg/util/webhook and client-go's rest client as the
 * admission and conversion webhooks use them): a JSON POST over HTTPS to a `clientConfig`,
 * verifying the server against its `caBundle` (or the system roots when there is none), with the
 * call's time-out both as the client's deadline and as the `?timeout=` parameter. Failures are
 * worded as Go's net/http and crypto/tls word them, since they end up in the apiserver's message
 * (`Post "https://…?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`).
 *
 * A `service` reference cannot be resolved through a cluster network here: it is resolved by the
 * user's mapping of `namespace/name` to a local address (`serve --webhook-service
 * ns/name=127.0.0.1:PORT`), and the TLS server name stays the Service's DNS name
 * (`name.namespace.svc`), as the apiserver's service resolver keeps it.
 */
import { request } from 'node:https';
import { isObject } from '../../apimachinery/patch';

export interface ServiceReference {
  namespace?: string;
  name?: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 of the PEM bundle that signed the webhook's serving certificate. */
  caBundle?: string;
}

/** `namespace/name` → `host:port`: where a Service a webhook names is served from on this machine. */
export type ServiceMap = ReadonlyMap<string, string>;

/** Parses one `--webhook-service ns/name=host:port`; throws with the flag's wording when malformed. */
export function parseServiceMapping(spec: string): [string, string] {
  const m = /^([^/=\s]+)\/([^/=\s]+)=(\[[^\]]+\]|[^:\s]+):(\d+)$/.exec(spec);
  if (!m || Number(m[4]) < 1 || Number(m[4]) > 65535)
    throw new Error(`--webhook-service expects namespace/name=host:port, got "${spec}"`);
  return [`${m[1]}/${m[2]}`, `${m[3]}:${m[4]}`];
}

/** A call that did not get an answer to decode: Go's error text and whether it timed out. */
export class WebhookCallError extends Error {
  constructor(
    message: string,
    /** The Status a non-2xx answer carried (client-go turns it into a StatusError). */
    readonly status?: { code: number; message: string; reason?: string },
  ) {
    super(message);
  }
}

interface Target {
  /** The URL as the apiserver names it in errors (the Service's DNS name for a service). */
  url: URL;
  host: string;
  port: number;
  servername: string;
}

/** Where a client config points: its URL, or the Service's URL sent to the mapped address. */
export function resolveTarget(cfg: WebhookClientConfig, services: ServiceMap): Target {
  if (cfg.url !== undefined) {
    const url = new URL(cfg.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return { url, host, port: Number(url.port || 443), servername: host };
  }
  const svc = cfg.service ?? {};
  const port = svc.port ?? 443;
  const dns = `${svc.name}.${svc.namespace}.svc`;
  const url = new URL(`https://${dns}:${port}${svc.path ?? ''}`);
  const mapped = services.get(`${svc.namespace}/${svc.name}`);
  if (!mapped)
    throw new WebhookCallError(
      `service "${svc.name}" not found` /* the service resolver's lister error */,
    );
  const i = mapped.lastIndexOf(':');
  return {
    url,
    host: mapped.slice(0, i).replace(/^\[|\]$/g, ''),
    port: Number(mapped.slice(i + 1)),
    servername: dns,
  };
}

/**
 * POSTs `body` as JSON and resolves to the decoded JSON answer; rejects with a WebhookCallError
 * worded as client-go's `Post "<url>": <cause>`.
 */
export function postJSON(
  cfg: WebhookClientConfig,
  services: ServiceMap,
  body: unknown,
  timeoutSeconds: number | undefined,
): Promise<unknown> {
  let target: Target;
  try {
    target = resolveTarget(cfg, services);
  } catch (err) {
    return Promise.reject(
      err instanceof WebhookCallError ? err : new WebhookCallError(String(err)),
    );
  }
  const url = new URL(target.url);
  if (timeoutSeconds) url.searchParams.set('timeout', `${timeoutSeconds}s`);
  const shown = `Post "${url.toString()}"`;
  const ca = cfg.caBundle ? Buffer.from(cfg.caBundle, 'base64').toString('utf8') : undefined;
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string, status?: WebhookCallError['status']) => {
      if (settled) return;
      settled = true;
      reject(new WebhookCallError(message, status));
    };
    const req = request(
      {
        host: target.host,
        port: target.port,
        method: 'POST',
        path: url.pathname + url.search,
        servername: isIp(target.servername) ? undefined : target.servername,
        ...(ca ? { ca } : {}),
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'Content-Length': payload.length,
          Host: url.host,
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => fail(`${shown}: ${e.message}`));
        res.on('end', () => {
          if (settled) return;
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          let decoded: unknown;
          try {
            decoded = text ? JSON.parse(text) : undefined;
          } catch {
            decoded = undefined;
          }
          if (code < 200 || code > 299) {
            const st = isObject(decoded) && decoded.kind === 'Status' ? decoded : undefined;
            const message =
              typeof st?.message === 'string' && st.message
                ? st.message
                : unstructuredResponseError(code, text);
            fail(message, {
              code,
              message,
              ...(typeof st?.reason === 'string' ? { reason: st.reason } : {}),
            });
            return;
          }
          if (decoded === undefined) {
            fail(`couldn't get version/kind; json parse error: ${jsonError(text)}`);
            return;
          }
          settled = true;
          resolve(decoded);
        });
      },
    );
    const timer =
      timeoutSeconds !== undefined
        ? setTimeout(() => {
            fail(`${shown}: context deadline exceeded`);
            req.destroy();
          }, timeoutSeconds * 1000)
        : undefined;
    req.on('error', (e: NodeJS.ErrnoException) => fail(`${shown}: ${goNetError(e, target)}`));
    req.on('close', () => clearTimeout(timer));
    req.end(payload);
  });
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

/** Node's socket and TLS failures as Go's dialer and crypto/tls word them. */
function goNetError(e: NodeJS.ErrnoException, t: Target): string {
  const addr = `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${t.host}: no such host`;
    case 'EHOSTUNREACH':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${t.servername}`;
    default:
      return e.message;
  }
}

/** client-go's newUnstructuredResponseError: a non-Status body of an error answer. */
function unstructuredResponseError(code: number, body: string): string {
  const shown = body.length > 0 && body.length < 1024 ? body : '';
  switch (code) {
    case 401:
      return 'Unauthorized';
    case 403:
      return `forbidden${shown ? `: ${shown}` : ''}`;
    case 404:
      return 'the server could not find the requested resource';
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 409:
      return 'the server reported a conflict';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default:
      if (code >= 500)
        return `an error on the server (${JSON.stringify(shown || 'unknown')}) has prevented the request from succeeding`;
      return `the server rejected our request for an unknown reason${shown ? ` (${shown})` : ''}`;
  }
}

function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return '';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
