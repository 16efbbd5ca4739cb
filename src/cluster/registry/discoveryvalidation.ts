/**
 * ValidateEndpointSlice (pkg/apis/discovery/validation of the pinned release) with its messages:
 * the address type, the ports, and each endpoint's addresses, node name, hostname, topology and
 * hints. ObjectMeta is validated for every kind elsewhere. An update that leaves the endpoints as
 * they were is not refused for them (older releases stored what this one refuses), and the
 * address type cannot change.
 */
import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooMany,
  type FieldError,
} from '../apimachinery/errors';
import {
  isQualifiedName,
  isValidLabelValue,
  validateLabels,
  validateName,
} from '../apimachinery/names';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { list, rec } from '../apimachinery/unstructured';
import {
  isIPv4,
  parseIPSloppy,
  validEndpointIP,
  validIP,
  validIPForLegacyField,
} from './ipvalidation';

type Obj = Record<string, unknown>;

/** supportedAddressTypes and supportedPortProtocols, sorted as sets.List gives them. */
const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_ENDPOINTS = 1000;
const MAX_HINTS = 8;

export function validateEndpointSlice(obj: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = typeof obj.addressType === 'string' ? obj.addressType : '';
  if (!addressType) errs.push(fieldRequired('addressType'));
  else if (!ADDRESS_TYPES.includes(addressType))
    errs.push(fieldNotSupported('addressType', addressType, ADDRESS_TYPES));
  errs.push(...portErrors(list(obj.ports)));
  let endpointErrs = endpointErrors(list(obj.endpoints), addressType);
  if (endpointErrs.length && old && deepEqual(old.endpoints ?? null, obj.endpoints ?? null))
    endpointErrs = [];
  errs.push(...endpointErrs);
  if (old && old.addressType !== obj.addressType)
    errs.push(fieldInvalid('addressType', addressType, 'field is immutable'));
  return errs;
}

function endpointErrors(endpoints: unknown[], addressType: string): FieldError[] {
  if (endpoints.length > MAX_ENDPOINTS)
    return [fieldTooMany('endpoints', endpoints.length, MAX_ENDPOINTS)];
  const errs: FieldError[] = [];
  endpoints.forEach((e, i) => {
    const ep = rec(e);
    const at = `endpoints[${i}]`;
    const addresses = list(ep.addresses).map((a) => (typeof a === 'string' ? a : ''));
    if (addresses.length === 0)
      errs.push(fieldRequired(`${at}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES)
      errs.push(fieldTooMany(`${at}.addresses`, addresses.length, MAX_ADDRESSES));
    addresses.forEach((address, j) =>
      errs.push(...addressErrors(address, addressType, `${at}.addresses`, j)),
    );
    if (typeof ep.nodeName === 'string')
      for (const m of validateName(ep.nodeName, 'subdomain'))
        errs.push(fieldInvalid(`${at}.nodeName`, ep.nodeName, m));
    const topology = rec(ep.deprecatedTopology);
    const n = Object.keys(topology).length;
    if (n > MAX_TOPOLOGY_LABELS)
      errs.push(fieldTooMany(`${at}.deprecatedTopology`, n, MAX_TOPOLOGY_LABELS));
    errs.push(...validateLabels(ep.deprecatedTopology, `${at}.deprecatedTopology`));
    if (typeof ep.hostname === 'string')
      for (const m of validateName(ep.hostname, 'label'))
        errs.push(fieldInvalid(`${at}.hostname`, ep.hostname, m));
    if (isObject(ep.hints)) errs.push(...hintErrors(ep.hints, `${at}.hints`));
  });
  return errs;
}

/** An address of the slice's type; addresses of an unknown type are not checked. */
function addressErrors(address: string, addressType: string, at: string, j: number): FieldError[] {
  const field = `${at}[${j}]`;
  if (addressType === 'IPv4' || addressType === 'IPv6') {
    const v4 = addressType === 'IPv4';
    const ipErrs = v4 ? validIPForLegacyField(field, address) : validIP(field, address);
    if (ipErrs.length) return ipErrs;
    const errs: FieldError[] = [];
    const ip = parseIPSloppy(address);
    if (ip && isIPv4(ip) !== v4)
      errs.push(fieldInvalid(at, address, `must be an ${addressType} address`));
    errs.push(...validEndpointIP(field, address));
    return errs;
  }
  if (addressType === 'FQDN') return fqdnErrors(field, address);
  return [];
}

/** validation.IsFullyQualifiedDomainName. */
function fqdnErrors(field: string, value: string): FieldError[] {
  if (!value) return [fieldRequired(field)];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const subdomain = validateName(name, 'subdomain');
  if (subdomain.length) return [fieldInvalid(field, name, subdomain.join(','))];
  const labels = name.split('.');
  if (labels.length < 2)
    return [
      fieldInvalid(field, name, 'should be a domain with at least two segments separated by dots'),
    ];
  for (const label of labels) {
    const e = validateName(label, 'label');
    if (e.length) return [fieldInvalid(field, label, e.join(','))];
  }
  return [];
}

function portErrors(ports: unknown[]): FieldError[] {
  if (ports.length > MAX_PORTS) return [fieldTooMany('ports', ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names: string[] = [];
  ports.forEach((p, i) => {
    const port = rec(p);
    const at = `ports[${i}]`;
    const name = typeof port.name === 'string' ? port.name : '';
    if (name)
      for (const m of validateName(name, 'label')) errs.push(fieldInvalid(`${at}.name`, name, m));
    if (names.includes(name)) errs.push(fieldDuplicate(`${at}.name`, name));
    else names.push(name);
    if (typeof port.protocol !== 'string') errs.push(fieldRequired(`${at}.protocol`));
    else if (!PROTOCOLS.includes(port.protocol))
      errs.push(fieldNotSupported(`${at}.protocol`, port.protocol, PROTOCOLS));
    if (typeof port.appProtocol === 'string')
      for (const m of isQualifiedName(port.appProtocol))
        errs.push(fieldInvalid(`${at}.appProtocol`, port.appProtocol, m));
  });
  return errs;
}

/** validateHints: at most 8 zones and 8 nodes, each named once and validly. */
function hintErrors(hints: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [key, check] of [
    ['forZones', (n: string) => isValidLabelValue(n)],
    ['forNodes', (n: string) => validateName(n, 'subdomain')],
  ] as const) {
    const items = list(hints[key]);
    if (items.length > MAX_HINTS) {
      errs.push(fieldTooMany(`${at}.${key}`, items.length, MAX_HINTS));
      return errs;
    }
    const seen: string[] = [];
    items.forEach((h, i) => {
      const name = typeof rec(h).name === 'string' ? (rec(h).name as string) : '';
      const field = `${at}.${key}[${i}].name`;
      if (seen.includes(name)) errs.push(fieldDuplicate(field, name));
      else seen.push(name);
      for (const m of check(name)) errs.push(fieldInvalid(field, name, m));
    });
  }
  return errs;
}
