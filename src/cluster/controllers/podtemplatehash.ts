/**
 * controller.ComputeHash (pkg/controller/controller_utils.go), the name kube-controller-manager
 * gives a Deployment's ReplicaSets and a DaemonSet's ControllerRevisions: FNV-1a (32-bit) over
 * dump.ForHash of the v1.PodTemplateSpec — go-spew's text of the Go value (api/spew.ts) — then,
 * when the status has a collisionCount, its value as 8 little-endian bytes, and the decimal sum
 * through rand.SafeEncodeString. Being Go's hash, the fake's names are the real cluster's.
 */
import { typeShape } from '../api/apigraph';
import { spewGoValue } from '../api/spew';
import { FNV32_OFFSET } from '../../util/fnv';

const FNV32_PRIME = 0x01000193;
/** rand.SafeEncodeString's alphabet: no vowels, nor 0, 1 and 3, so no words are spelled. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

let podTemplateSpec: ReturnType<typeof typeShape> | undefined;

/** dump.ForHash of the template as the Go value kube-controller-manager decodes from it. */
export function podTemplateDump(template: unknown): string {
  podTemplateSpec ??= typeShape('k8s.io/api/core/v1.PodTemplateSpec');
  return spewGoValue(podTemplateSpec, template);
}

const encoder = new TextEncoder();
/** Reused for every hash: a template's dump is some kilobytes (3 bytes per UTF-16 unit at most). */
let scratch = new Uint8Array(1 << 15);

/**
 * FNV-1a over a string's UTF-8 bytes (what fmt.Fprintf writes into the hasher). Encoding into
 * a buffer first also flattens the dump, a tree of concatenations that reading character by
 * character would walk at several times the cost.
 */
function fnv1a32Utf8(s: string): number {
  if (s.length * 3 > scratch.length) scratch = new Uint8Array(s.length * 3);
  const { written } = encoder.encodeInto(s, scratch);
  let h = FNV32_OFFSET;
  for (let i = 0; i < written; i++) h = Math.imul(h ^ scratch[i], FNV32_PRIME) >>> 0;
  return h;
}

/** rand.SafeEncodeString: each byte of the string mapped into the alphabet. */
function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += ALPHANUMS[s.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

/**
 * ComputeHash(template, collisionCount): `collisionCount` undefined is Go's nil (nothing added),
 * as for an object whose status has none; 0 adds eight zero bytes, as a pointer to 0 does.
 * Not cached: a Deployment hashes only when it makes a ReplicaSet, a DaemonSet once a sync.
 */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv1a32Utf8(podTemplateDump(template));
  if (collisionCount !== undefined) {
    // binary.LittleEndian.PutUint32 into 8 bytes: the uint32 of the count, then four zeros.
    const c = collisionCount >>> 0;
    for (const b of [c & 0xff, (c >>> 8) & 0xff, (c >>> 16) & 0xff, c >>> 24, 0, 0, 0, 0])
      h = Math.imul(h ^ b, FNV32_PRIME) >>> 0;
  }
  return safeEncodeString(String(h));
}
