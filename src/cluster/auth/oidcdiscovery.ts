/**
 * Service account issuer discovery (kubernetes `pkg/serviceaccount/openidmetadata.go`, served at
 * `/.well-known/openid-configuration` and `/openid/v1/jwks`): what an OIDC relying party (a
 * cloud's workload identity, Vault) reads to verify the cluster's service account tokens — the
 * issuer, where its keys are, and the public key as a JSON Web Key Set.
 */
import type { ServiceAccountTokens } from './serviceaccounttoken';

export const OPENID_CONFIG_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

/** The static key getter's GetCacheAgeMaxSeconds: clients may cache both documents an hour. */
export const METADATA_MAX_AGE_SECONDS = 3600;

/**
 * openIDConfigJSON. The JWKS URI is the issuer's host with the keys' path, as kube-apiserver
 * defaults `--service-account-jwks-uri` from its external address (the same host here).
 */
export function openIDConfiguration(tokens: ServiceAccountTokens): string {
  const origin = new URL(tokens.issuer).origin;
  return JSON.stringify({
    issuer: tokens.issuer,
    jwks_uri: `${origin}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [tokens.key.alg],
  });
}

/** openIDKeysetJSON: the public key as go-jose writes a JSONWebKey (its fields in that order). */
export function openIDKeyset(tokens: ServiceAccountTokens): string {
  const jwk = tokens.key.publicKey.export({ format: 'jwk' });
  return JSON.stringify({
    keys: [
      {
        use: 'sig',
        kty: jwk.kty,
        kid: tokens.key.kid,
        crv: jwk.crv,
        alg: tokens.key.alg,
        x: jwk.x,
        y: jwk.y,
      },
    ],
  });
}
