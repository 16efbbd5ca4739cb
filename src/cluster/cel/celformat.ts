/**
 * Kubernetes' CEL format library (k8s.io/apiserver/pkg/cel/library/format.go, in the base
 * environment since 1.31): the named string formats, `format.<name>()` and `format.named(name)`
 * (an optional Format), and `<Format>.validate(s)`: `optional.none()` when s is valid, otherwise
 * an optional of apimachinery's messages (`format.dns1123Label().validate(self.name)`).
 */
import { CelScalar, celFunc, celList, celMethod } from '@bufbuild/cel';
import { OPAQUE, expect, opaqueType } from './celopaque';
import { OPTIONAL_NONE, optionalOf } from './celoptional';
import { requestURIError } from './celurl';
import type { NameRule } from '../apimachinery/names';
import { isQualifiedName, isValidLabelValue, validateName } from '../apimachinery/names';

const { DYN, STRING } = CelScalar;

/** NameIsDNSLabel & co. with prefix=true: a trailing dash is allowed (generateName prefixes). */
function dnsName(rule: NameRule, prefix: boolean): (s: string) => string[] {
  return (s) =>
    validateName(prefix && s.length > 1 && s.endsWith('-') ? `${s.slice(0, -1)}a` : s, rule);
}

/** kube-openapi strfmt's UUIDPattern (each dash optional) and govalidator's Base64 (not empty). */
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
/** strfmt's IsDateTime: a date, `T`, then rxDateTime (the offset with a colon). */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A calendar date (Go's time.Parse("2006-01-02") rejects 2021-02-30). */
function validDate(y: string, m: string, d: string): boolean {
  const t = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return t.getUTCMonth() === Number(m) - 1 && t.getUTCDate() === Number(d);
}

const check = (ok: (s: string) => boolean, message: string) => (s: string) =>
  ok(s) ? [] : [message];

/** ConstantFormats: the format's validation, by the name rules call it with. */
const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label: dnsName('label', false),
  dns1123Subdomain: dnsName('subdomain', false),
  dns1035Label: dnsName('dns1035', false),
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: dnsName('label', true),
  dns1123SubdomainPrefix: dnsName('subdomain', true),
  dns1035LabelPrefix: dnsName('dns1035', true),
  labelValue: isValidLabelValue,
  uri: (s) => {
    const err = requestURIError(s);
    return err === undefined ? [] : [err];
  },
  uuid: check((s) => UUID.test(s), 'does not match the UUID format'),
  byte: check((s) => BASE64.test(s), 'invalid base64'),
  date: check((s) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
    return !!m && validDate(m[1]!, m[2]!, m[3]!);
  }, 'invalid date'),
  datetime: check((s) => {
    const m = DATE_TIME.exec(s);
    return (
      !!m &&
      validDate(m[1]!, m[2]!, m[3]!) &&
      Number(m[4]) < 24 &&
      Number(m[5]) < 60 &&
      Number(m[6]) < 60
    );
  }, 'invalid datetime'),
};

const FORMAT = opaqueType<string>('kubernetes.NamedFormat');

export const formatLibrary = [
  ...Object.keys(FORMATS).map((name) =>
    celFunc(`format.${name}`, [], OPAQUE, () => FORMAT.wrap(name)),
  ),
  celFunc('format.named', [STRING], DYN, (name) =>
    Object.hasOwn(FORMATS, name) ? optionalOf(FORMAT.wrap(name)) : OPTIONAL_NONE,
  ),
  celMethod('validate', OPAQUE, [STRING], DYN, function (s) {
    const errs = FORMATS[expect(FORMAT, this)]!(s);
    return errs.length ? optionalOf(celList(errs)) : OPTIONAL_NONE;
  }),
];
