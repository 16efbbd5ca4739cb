/**
 * JSON Web Tokens in JWS compact serialization (RFC 7515 §7.1), signed ES256 (RFC 7518 §3.4), as
 * go-jose signs and parses the apiserver's service account tokens.
 *
 * Written on node:crypto rather than a JOSE library: the only one in node_modules (`jose`) comes
 * in through @kubernetes/client-node's OIDC client, is not a dependency of ours, and is
 * asynchronous throughout, while the cluster's writes and reviews are synchronous. The compact
 * form is three base64url parts; the cryptography (ECDSA P-256 over SHA-256, signatures in the
 * IEEE P1363 r‖s form JWS uses) is node's.
 */
import { createHash, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/** A signing key and the id (`kid`) its tokens name. */
export interface SigningKey {
  alg: 'ES256';
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/**
 * A new P-256 key. Its id is keyIDFromPublicKey's: the base64url SHA-256 of the public key's
 * PKIX (SubjectPublicKeyInfo) DER.
 */
export function generateSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const kid = createHash('sha256').update(der).digest('base64url');
  return { alg: 'ES256', kid, privateKey, publicKey };
}

/** The token of `claims`: header `{"alg","kid"}`, the claims as encoding/json writes a map. */
export function signToken(key: SigningKey, claims: Record<string, unknown>): string {
  const header = b64(JSON.stringify({ alg: key.alg, kid: key.kid }));
  const payload = b64(goJson(claims));
  const input = `${header}.${payload}`;
  const sig = sign('sha256', Buffer.from(input), {
    key: key.privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${sig.toString('base64url')}`;
}

/** A token taken apart, not yet verified. */
export interface ParsedToken {
  header: Record<string, unknown>;
  /** The claims, as decoded: nothing in them is to be trusted before `verifyToken`. */
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/** jwt.ParseSigned: undefined when the text is not a compact JWS with JSON header and payload. */
export function parseToken(token: string): ParsedToken | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p))) return undefined;
  const [h, p, s] = parts as [string, string, string];
  const header = jsonObject(Buffer.from(h, 'base64url').toString('utf8'));
  const claims = jsonObject(Buffer.from(p, 'base64url').toString('utf8'));
  if (!header || !claims || typeof header.alg !== 'string') return undefined;
  return { header, claims, signingInput: `${h}.${p}`, signature: Buffer.from(s, 'base64url') };
}

/** Whether `key` signed the token under the algorithm its header names. */
export function verifyToken(key: SigningKey, t: ParsedToken): boolean {
  if (t.header.alg !== key.alg || t.signature.length !== 64) return false;
  return verify(
    'sha256',
    Buffer.from(t.signingInput),
    {
      key: key.publicKey,
      dsaEncoding: 'ieee-p1363',
    },
    t.signature,
  );
}

function b64(s: string): string {
  return Buffer.from(s).toString('base64url');
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * JSON with every object's keys sorted: go-jose merges the claims into a map before marshalling
 * them, and encoding/json writes a map's keys in order.
 */
export function goJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.entries(x as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : x,
  );
}
