/** Where two normalised answers differ, as paths (body.metadata.labels.x) with both values. */

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
