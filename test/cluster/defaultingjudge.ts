/**
 * The judge of the defaulting tests: tools/defaulting, kube-apiserver's own scheme defaulters for
 * the pinned release. `default` decodes each object into its versioned Go type, defaults it and
 * encodes it; `roundtrip` only decodes and encodes (what the fake's answer looks like to Go);
 * `probes` are the objects the generated rules were read from. The callers skip without Go.
 */
import { buildDefaulting } from '../../scripts/apigen-defaults.mjs';
import { goJsonLines } from './goconform';

type Json = Record<string, unknown>;

export const goDefault = (objects: readonly unknown[]): Json[] =>
  goJsonLines(buildDefaulting(), 'default', objects);
export const goRoundtrip = (objects: readonly unknown[]): Json[] =>
  goJsonLines(buildDefaulting(), 'roundtrip', objects);
export const goProbes = (): Json[] => goJsonLines(buildDefaulting(), 'probes', []);
