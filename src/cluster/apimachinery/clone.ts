/**
 * Deep copies of JSON objects. Stored objects are plain JSON, so a JSON round trip is exact and,
 * for these shapes, faster than structuredClone.
 */
export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/**
 * The JSON text of an object nobody mutates: the text a copy was decoded from, or a stored
 * object's own serialization (the cluster's jsonOf keeps it here, so an informer handed the
 * stored object copies it with one parse).
 */
const decodedTexts = new WeakMap<object, string>();

/**
 * Remembers that `copy` is exactly `text` decoded. Only for objects kept unchanged (what list and
 * watch hand to informers, which never mutate them, and the cluster's stored objects, which a
 * write replaces): copyOfDecoded trusts the text.
 */
export function decodedFrom(copy: object, text: string): void {
  decodedTexts.set(copy, text);
}

/** `v` changed hands or stopped matching its text: copies of it are encoded again. */
export function forgetDecoded(v: object): void {
  decodedTexts.delete(v);
}

/** The JSON text `v` was decoded from, when decodedFrom recorded it (`v` is then never mutated). */
export function decodedText(v: object): string | undefined {
  return decodedTexts.get(v);
}

/**
 * A deep copy of an object nobody mutates (an informer's): decoded again from the text it came
 * from when that is known, which spares encoding it first (the cache copies on every read).
 */
export function copyOfDecoded<T extends object>(v: T): T {
  const text = decodedTexts.get(v);
  return text !== undefined ? (JSON.parse(text) as T) : clone(v);
}
