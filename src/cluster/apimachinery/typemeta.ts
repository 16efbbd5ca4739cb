/**
 * The items of a built-in kind's list carry no apiVersion and kind on the wire. kube-apiserver
 * stores and lists built-ins as Go structs whose TypeMeta is empty (only the object a response is
 * made of gets its TypeMeta set by the encoder, not the objects nested in it), so
 * `{"kind":"ConfigMapList","apiVersion":"v1","items":[{"metadata":…}]}`. Custom resources are
 * unstructured and keep theirs; watch events set each object's own.
 */
import type { KubeObject } from './types';

/** `o` without its top-level apiVersion and kind (a shallow copy; `o` is not changed). */
export function withoutTypeMeta(o: KubeObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  void _a;
  void _k;
  return rest;
}

/**
 * The JSON text of `o` (given as `text`, which JSON.stringify(o) made) without its top-level
 * apiVersion and kind. Where both keys come first or last in `o`'s key order, as they do for
 * objects decoded from what clients send, the text is cut rather than serialized again.
 */
export function withoutTypeMetaJSON(o: KubeObject, text: string): string {
  const keys = Object.keys(o);
  const typed: string[] = keys.filter((k) => k === 'apiVersion' || k === 'kind');
  const member = (k: string) =>
    `${JSON.stringify(k)}:${JSON.stringify((o as Record<string, unknown>)[k])}`;
  if (!typed.length) return text;
  if (keys.length > typed.length) {
    const head = keys.slice(0, typed.length);
    if (head.every((k) => typed.includes(k))) {
      const prefix = `{${head.map(member).join(',')},`;
      if (text.startsWith(prefix)) return `{${text.slice(prefix.length)}`;
    }
    const tail = keys.slice(keys.length - typed.length);
    if (tail.every((k) => typed.includes(k))) {
      const suffix = `,${tail.map(member).join(',')}}`;
      if (text.endsWith(suffix)) return `${text.slice(0, text.length - suffix.length)}}`;
    }
  }
  return JSON.stringify(withoutTypeMeta(o));
}
