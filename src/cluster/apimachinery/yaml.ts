/**
 * Objects as kube-apiserver answers `Accept: application/yaml`: sigs.k8s.io/yaml's JSONToYAML,
 * which hands the JSON to go-yaml v2. Keys come sorted, lists sit at their key's indentation,
 * and a string that YAML 1.1 would read as something else (a boolean such as `yes` or `n`, a
 * null, a number, a timestamp) is double-quoted, one that cannot be written plain (`'*'`) is
 * single-quoted. One known difference: go-yaml breaks a long
 * plain string at the first space past column 80, the yaml package before column 80; both read
 * back as the same string.
 */
import { Document, visit } from 'yaml';

/** Plain scalars go-yaml v2 resolves to another type than string (YAML 1.1), beyond YAML 1.2's. */
const YAML11_NOT_STRING =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|~|null|Null|NULL|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?)$/;

/**
 * Plain scalars go-yaml v2 resolves to a number (strconv's ints and floats, `_` allowed, hex and
 * binary, .inf and .nan) or takes for a base-60 float: written double-quoted.
 */
const YAML11_NUMBER =
  /^(?:[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)?|[-+]?0x[0-9a-fA-F_]+|[-+]?0b[01_]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?)$/;

/** The YAML text kube-apiserver's YAML serializer writes for a JSON value. */
export function toYaml(value: unknown): string {
  const doc = new Document(value, { sortMapEntries: true });
  visit(doc, {
    Scalar(_, node) {
      if (
        typeof node.value === 'string' &&
        // The empty string resolves to null as a plain scalar: double-quoted too.
        (node.value === '' || YAML11_NOT_STRING.test(node.value) || YAML11_NUMBER.test(node.value))
      )
        node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({
    indentSeq: false,
    lineWidth: 80,
    minContentWidth: 0,
    doubleQuotedAsJSON: true,
    // A string that cannot be plain (`'*'`, `'a: b'`) is single-quoted, as libyaml's emitter
    // falls back from plain to single-quoted; only those resolving to another type are double.
    singleQuote: true,
  });
}
