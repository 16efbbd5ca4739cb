/**
 * Objects as kube-apiserver answers `Accept: application/yaml`: sigs.k8s.io/yaml's JSONToYAML,
 * which hands the JSON to go-yaml v2. Keys come sorted, lists sit at their key's indentation,
 * and a string that YAML 1.1 would read as something else (a boolean such as `yes` or `n`, a
 * null, a number, a timestamp) is double-quoted. One known difference: go-yaml breaks a long
 * plain string at the first space past column 80, the yaml package before column 80; both read
 * back as the same string.
 */
import { Document, visit } from 'yaml';

/** Plain scalars go-yaml v2 resolves to another type than string (YAML 1.1), beyond YAML 1.2's. */
const YAML11_NOT_STRING =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|~|null|Null|NULL|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?)$/;

/** The YAML text kube-apiserver's YAML serializer writes for a JSON value. */
export function toYaml(value: unknown): string {
  const doc = new Document(value, { sortMapEntries: true });
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && YAML11_NOT_STRING.test(node.value))
        node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({
    indentSeq: false,
    lineWidth: 80,
    minContentWidth: 0,
    doubleQuotedAsJSON: true,
  });
}
