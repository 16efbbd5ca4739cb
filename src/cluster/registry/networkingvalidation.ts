/**
 * The validation of networking.k8s.io's Ingresses and IngressClasses, ported from
 * pkg/apis/networking/validation of the pinned release with its messages. ObjectMeta is validated
 * for every kind elsewhere. The feature gates are 1.36's defaults: RelaxedServiceNameValidation
 * is on, so a backend's Service name is a DNS-1123 label.
 */
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  type FieldError,
} from '../apimachinery/errors';
import { isPathSegmentName, validateName } from '../apimachinery/names';
import type { KubeObject } from '../apimachinery/types';
import { list, rec, str } from '../apimachinery/unstructured';
import { isObject } from '../apimachinery/patch';
import { parseIPSloppy } from './ipvalidation';

type Obj = Record<string, unknown>;

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];
const MAX_CONTROLLER_LENGTH = 250;
const PARAMETER_SCOPES = ['Cluster', 'Namespace'];

const WILDCARD_SUBDOMAIN = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const WILDCARD_SUBDOMAIN_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;
const HTTP_PATH_MSG =
  "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')";

/** validation.IsWildcardDNS1123Subdomain. */
function wildcardSubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!WILDCARD_SUBDOMAIN.test(value)) errs.push(WILDCARD_SUBDOMAIN_MSG);
  return errs;
}

/** validation.IsValidPortName. */
export function portNameErrors(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.startsWith('-') || port.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** A host name of a rule or a TLS entry: a DNS subdomain, or a wildcard one. */
function hostErrors(host: string, field: string): FieldError[] {
  const msgs = host.includes('*') ? wildcardSubdomainErrors(host) : validateName(host, 'subdomain');
  return msgs.map((m) => fieldInvalid(field, host, m));
}

/** ValidateIngressCreate / ValidateIngressUpdate's spec part (validateIngress). */
export function validateIngress(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs: FieldError[] = [];
  const rules = spec.rules;
  if (list(rules).length === 0 && !isObject(spec.defaultBackend))
    errs.push(
      fieldInvalid('spec', rules ?? null, 'either `defaultBackend` or `rules` must be specified'),
    );
  if (isObject(spec.defaultBackend))
    errs.push(...backendErrors(spec.defaultBackend, 'spec.defaultBackend'));
  const lenientWildcards = old !== undefined && hasInvalidWildcardRule(rec(old.spec));
  list(rules).forEach((r, i) => {
    const rule = rec(r);
    const host = str(rule.host);
    const at = `spec.rules[${i}]`;
    let wildcard = false;
    if (host) {
      if (parseIPSloppy(host))
        errs.push(fieldInvalid(`${at}.host`, host, 'must be a DNS name, not an IP address'));
      wildcard = host.includes('*');
      errs.push(...hostErrors(host, `${at}.host`));
    }
    if (!wildcard || !lenientWildcards) errs.push(...ruleValueErrors(rule, at));
  });
  const lenientSecrets = old !== undefined && hasInvalidSecretName(rec(old.spec));
  list(spec.tls).forEach((t, i) => {
    const tls = rec(t);
    list(tls.hosts).forEach((h, j) =>
      errs.push(...hostErrors(str(h), `spec.tls[${i}].hosts[${j}]`)),
    );
    const secret = str(tls.secretName);
    if (secret && !lenientSecrets)
      for (const m of validateName(secret, 'subdomain'))
        errs.push(fieldInvalid(`spec.tls[${i}].secretName`, secret, m));
  });
  if (typeof spec.ingressClassName === 'string')
    for (const m of validateName(spec.ingressClassName, 'subdomain'))
      errs.push(fieldInvalid('spec.ingressClassName', spec.ingressClassName, m));
  if (!old) {
    const annotation = obj.metadata.annotations?.['kubernetes.io/ingress.class'];
    if (
      annotation !== undefined &&
      typeof spec.ingressClassName === 'string' &&
      annotation !== spec.ingressClassName
    )
      errs.push(
        fieldInvalid(
          'annotations.kubernetes.io/ingress.class',
          annotation,
          'must match `ingressClassName` when both are specified',
        ),
      );
  }
  return errs;
}

/** validateIngressRuleValue: an http rule has paths, each valid. */
function ruleValueErrors(rule: Obj, at: string): FieldError[] {
  if (!isObject(rule.http)) return [];
  const paths = list(rule.http.paths);
  const errs: FieldError[] = [];
  if (paths.length === 0) errs.push(fieldRequired(`${at}.http.paths`));
  paths.forEach((p, i) => errs.push(...pathErrors(rec(p), `${at}.http.paths[${i}]`)));
  return errs;
}

/** validateHTTPIngressPath. */
function pathErrors(p: Obj, at: string): FieldError[] {
  if (typeof p.pathType !== 'string')
    return [fieldRequired(`${at}.pathType`, 'pathType must be specified')];
  const errs: FieldError[] = [];
  const path = str(p.path);
  if (p.pathType === 'Exact' || p.pathType === 'Prefix') {
    if (!path.startsWith('/'))
      errs.push(fieldInvalid(`${at}.path`, path, 'must be an absolute path'));
    if (path) {
      for (const seq of INVALID_PATH_SEQUENCES)
        if (path.includes(seq))
          errs.push(fieldInvalid(`${at}.path`, path, `must not contain '${seq}'`));
      for (const suffix of INVALID_PATH_SUFFIXES)
        if (path.endsWith(suffix))
          errs.push(fieldInvalid(`${at}.path`, path, `cannot end with '${suffix}'`));
    }
  } else if (p.pathType === 'ImplementationSpecific') {
    if (path && !path.startsWith('/'))
      errs.push(fieldInvalid(`${at}.path`, path, 'must be an absolute path'));
  } else {
    errs.push(fieldNotSupported(`${at}.pathType`, p.pathType, PATH_TYPES));
  }
  errs.push(...backendErrors(rec(p.backend), `${at}.backend`));
  return errs;
}

/** validateIngressBackend: a resource or a service (a name and a port name or number). */
function backendErrors(b: Obj, at: string): FieldError[] {
  const resource = isObject(b.resource);
  const service = isObject(b.service);
  if (resource && service)
    return [fieldInvalid(at, '', 'cannot set both resource and service backends')];
  if (resource) return typedReferenceErrors(rec(b.resource), `${at}.resource`);
  if (!service) return [fieldInvalid(at, '', 'resource or service backend is required')];
  const svc = rec(b.service);
  const errs: FieldError[] = [];
  const name = str(svc.name);
  if (!name) errs.push(fieldRequired(`${at}.service.name`));
  else
    for (const m of validateName(name, 'label'))
      errs.push(fieldInvalid(`${at}.service.name`, name, m));
  const port = rec(svc.port);
  const portName = str(port.name);
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName && portNumber)
    errs.push(fieldInvalid(at, '', 'cannot set both port name & port number'));
  else if (portName)
    for (const m of portNameErrors(portName))
      errs.push(fieldInvalid(`${at}.service.port.name`, portName, m));
  else if (portNumber) {
    if (portNumber < 1 || portNumber > 65535)
      errs.push(
        fieldInvalid(
          `${at}.service.port.number`,
          portNumber,
          'must be between 1 and 65535, inclusive',
        ),
      );
  } else errs.push(fieldRequired(at, 'port name or number is required'));
  return errs;
}

/** validateIngressTypedLocalObjectReference: an optional group, a kind and a name. */
function typedReferenceErrors(ref: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof ref.apiGroup === 'string')
    for (const m of validateName(ref.apiGroup, 'subdomain'))
      errs.push(fieldInvalid(`${at}.apiGroup`, ref.apiGroup, m));
  for (const key of ['kind', 'name'] as const) {
    const v = str(ref[key]);
    if (!v) errs.push(fieldRequired(`${at}.${key}`));
    else for (const m of isPathSegmentName(v)) errs.push(fieldInvalid(`${at}.${key}`, v, m));
  }
  return errs;
}

/** allowInvalidWildcardHostRule: the stored Ingress already has an invalid wildcard rule. */
function hasInvalidWildcardRule(spec: Obj): boolean {
  return list(spec.rules).some((r) => {
    const rule = rec(r);
    return str(rule.host).includes('*') && ruleValueErrors(rule, '').length > 0;
  });
}

/** allowInvalidSecretName: the stored Ingress already names an invalid Secret. */
function hasInvalidSecretName(spec: Obj): boolean {
  return list(spec.tls).some((t) => {
    const secret = str(rec(t).secretName);
    return secret !== '' && validateName(secret, 'subdomain').length > 0;
  });
}

/** ValidateIngressClass (and the immutable controller of ValidateIngressClassUpdate). */
export function validateIngressClass(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs: FieldError[] = [];
  const controller = str(spec.controller);
  if (old && controller !== str(rec(old.spec).controller))
    errs.push(fieldInvalid('spec.controller', controller, 'field is immutable'));
  if (controller.length > MAX_CONTROLLER_LENGTH)
    errs.push(fieldTooLong('spec.controller', MAX_CONTROLLER_LENGTH));
  errs.push(...domainPrefixedPathErrors(controller, 'spec.controller'));
  if (isObject(spec.parameters)) errs.push(...parametersErrors(spec.parameters, 'spec.parameters'));
  return errs;
}

/** validation.IsDomainPrefixedPath. */
function domainPrefixedPathErrors(value: string, at: string): FieldError[] {
  if (!value) return [fieldRequired(at)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const path = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || !host || !path)
    return [fieldInvalid(at, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = validateName(host, 'subdomain').map((m) => fieldInvalid(at, host, m));
  if (!HTTP_PATH.test(path)) errs.push(fieldInvalid(at, path, HTTP_PATH_MSG));
  return errs;
}

/** validateIngressClassParametersReference. */
function parametersErrors(params: Obj, at: string): FieldError[] {
  const errs = typedReferenceErrors(params, at);
  if (typeof params.scope !== 'string') {
    errs.push(fieldRequired(`${at}.scope`));
    return errs;
  }
  if (!PARAMETER_SCOPES.includes(params.scope)) {
    errs.push(fieldNotSupported(`${at}.scope`, params.scope, PARAMETER_SCOPES));
    return errs;
  }
  if (params.scope === 'Namespace') {
    if (typeof params.namespace !== 'string')
      errs.push(fieldRequired(`${at}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    else
      for (const m of validateName(params.namespace, 'label'))
        errs.push(fieldInvalid(`${at}.namespace`, params.namespace, m));
  }
  if (params.scope === 'Cluster' && params.namespace !== undefined)
    errs.push(fieldForbidden(`${at}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  return errs;
}
