/** Where two normalised answers differ, as paths (body.metadata.labels.x) with both values. */
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';

export interface Difference {
  path: string;
  reference: unknown;
  fake: unknown;
}

const MISSING = '<absent>';

export function differences(
  reference: unknown,
  fake: unknown,
  path: string,
  out: Difference[] = [],
): Difference[] {
  if (reference === fake) return out;
  const yaml = yamlBodies(reference, fake, path);
  if (yaml) {
    // Compared as data, so the allowlist's paths apply inside the text too, and as text: how
    // each value is written and the order of each mapping's keys.
    differences(yaml[0].data, yaml[1].data, path, out);
    for (const [at, style] of yaml[0].styles) {
      const other = yaml[1].styles.get(at);
      if (other !== undefined && other !== style)
        out.push({ path: `${path}${at} (YAML style)`, reference: style, fake: other });
    }
    for (const [at, keys] of yaml[0].orders) {
      const theirs = yaml[1].orders.get(at);
      if (!theirs) continue;
      const both = (ks: string[], of: string[]) => ks.filter((k) => of.includes(k));
      const [r, f] = [both(keys, theirs), both(theirs, keys)];
      if (r.join('\n') !== f.join('\n'))
        out.push({ path: `${path}${at || '.'} (key order)`, reference: r, fake: f });
    }
    return out;
  }
  const bothObjects =
    reference !== null &&
    fake !== null &&
    typeof reference === 'object' &&
    typeof fake === 'object' &&
    Array.isArray(reference) === Array.isArray(fake);
  if (!bothObjects) {
    out.push({
      path,
      reference: reference === undefined ? MISSING : reference,
      fake: fake === undefined ? MISSING : fake,
    });
    return out;
  }
  if (Array.isArray(reference) && Array.isArray(fake)) {
    const n = Math.max(reference.length, fake.length);
    for (let i = 0; i < n; i++) differences(reference[i], fake[i], `${path}[${i}]`, out);
    return out;
  }
  const r = reference as Record<string, unknown>;
  const f = fake as Record<string, unknown>;
  for (const k of new Set([...Object.keys(r), ...Object.keys(f)])) {
    differences(r[k], f[k], `${path}.${k}`, out);
  }
  return out;
}

/** A YAML answer read as data, with each scalar's style and each mapping's keys, by path. */
interface YamlShape {
  data: unknown;
  styles: Map<string, string>;
  orders: Map<string, string[]>;
}

/** Both bodies, when both are Kubernetes objects as YAML text (`apiVersion: …` first). */
function yamlBodies(
  reference: unknown,
  fake: unknown,
  path: string,
): [YamlShape, YamlShape] | undefined {
  if (!path.endsWith('.body') || typeof reference !== 'string' || typeof fake !== 'string')
    return undefined;
  const r = yamlShape(reference);
  const f = r && yamlShape(fake);
  return r && f ? [r, f] : undefined;
}

const OBJECT_YAML = /^apiVersion: \S+\n/;

function yamlShape(text: string): YamlShape | undefined {
  if (!OBJECT_YAML.test(text)) return undefined;
  const doc = parseDocument(text);
  if (doc.errors.length || !isMap(doc.contents)) return undefined;
  const shape: YamlShape = { data: doc.toJS(), styles: new Map(), orders: new Map() };
  const walk = (node: Node | null, at: string): void => {
    if (isMap(node)) {
      if (node.flow) shape.styles.set(at, 'FLOW_MAP');
      const keys: string[] = [];
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        keys.push(key);
        walk(pair.value as Node | null, `${at}.${key}`);
      }
      shape.orders.set(at, keys);
    } else if (isSeq(node)) {
      if (node.flow) shape.styles.set(at, 'FLOW_SEQ');
      node.items.forEach((item, i) => walk(item as Node | null, `${at}[${i}]`));
    } else if (isScalar(node)) {
      shape.styles.set(at, node.type ?? 'PLAIN');
    }
  };
  walk(doc.contents, '');
  return shape;
}
