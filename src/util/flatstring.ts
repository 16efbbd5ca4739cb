/**
 * A string made by concatenation (a template literal, `+=`) is, in V8, a tree of "cons" pieces of
 * 32 bytes each until something reads it whole. Strings kept for long (a trace's summaries) hold
 * several times their length that way, and every young-generation collection copies each piece.
 * Converting one to a number reads it whole: V8 flattens it in place, and the collector then drops
 * the pieces. Other engines lose nothing.
 */
let _sink = 0;

/** `s`, flattened (see above). */
export function flattened(s: string): string {
  // The result is kept so that no minifier drops the conversion as unused.
  _sink ^= Number(s) | 0;
  return s;
}
