/**
 * 32-bit FNV-1a (Go's hash/fnv New32a), over a string's UTF-16 code units — the same as over its
 * bytes for ASCII, which is all the callers hash where Go would (pod-template-hash, the
 * storageVersionHash). Pass a previous result as `seed` to hash several strings as one.
 */
export const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

export function fnv1a32(s: string, seed = FNV32_OFFSET): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV32_PRIME) >>> 0;
  return h;
}

/**
 * 32-bit FNV-1 (Go's hash/fnv New32: multiply, then xor) over a string's UTF-8 bytes, as
 * history.HashControllerRevision hashes a ControllerRevision's data.
 */
export function fnv132(s: string): number {
  let h = FNV32_OFFSET;
  for (const b of Buffer.from(s, 'utf8')) h = (Math.imul(h, FNV32_PRIME) ^ b) >>> 0;
  return h;
}
