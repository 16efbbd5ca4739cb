/**
 * JSON as Go's encoding/json writes a map[string]interface{}: keys sorted by their bytes, no
 * spaces, and the HTML-safe escapes (<, >, & and U+2028 / U+2029 as \u00XX). Controllers that
 * hash such bytes (a StatefulSet's ControllerRevision) must produce the same ones Go does.
 */
export function goMarshal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(goMarshal).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${keys.map((k) => `${goString(k)}:${goMarshal(o[k])}`).join(',')}}`;
  }
  if (typeof v === 'string') return goString(v);
  return JSON.stringify(v);
}

function goString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
