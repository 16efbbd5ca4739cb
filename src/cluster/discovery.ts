/**
 * Discovery documents (/api, /apis, /api/v1, /apis/<group>/<version>) and /version, built from
 * the registry so a CRD's resources appear the moment it is established.
 */
import { REVIEW_TYPES, subresourceInfo } from './registry';
import type { Registry, ResourceType } from './registry';
import { fnv1a32 } from '../util/fnv';

export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-reconcile-studio',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function storageVersionHash(t: ResourceType): string {
  const h = fnv1a32(`${t.info.group}/${t.info.version}/${t.info.kind}`);
  return Buffer.from(h.toString(16).padStart(8, '0')).toString('base64').slice(0, 11) + '=';
}

/** Every resource discovery lists: the registry's, then the review resources (never stored). */
export function servedTypes(reg: Registry): ResourceType[] {
  return [...reg.all(), ...REVIEW_TYPES];
}

export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** Groups in registry order; within a group, versions newest first (v2 > v1 > v1beta1). */
function groups(reg: Registry): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of servedTypes(reg)) {
    if (!t.info.group) continue;
    const vs = out.get(t.info.group) ?? [];
    if (!vs.includes(t.info.version)) vs.push(t.info.version);
    out.set(t.info.group, vs);
  }
  for (const vs of out.values()) vs.sort(compareVersions);
  return out;
}

/** Kube-aware version priority: GA before beta before alpha, higher numbers first. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    return [m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, Number(m[1]), Number(m[3] ?? 0)];
  };
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i] - pa[i];
  return a < b ? -1 : 1;
}

function groupDoc(name: string, versions: string[]): object {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(reg: Registry): object {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups(reg)].map(([g, vs]) => groupDoc(g, vs)),
  };
}

export function apiGroup(reg: Registry, group: string): object | undefined {
  const vs = groups(reg).get(group);
  if (!vs) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, vs) };
}

export function apiResourceList(reg: Registry, groupVersion: string): object | undefined {
  const types = servedTypes(reg).filter((t) => t.apiVersion === groupVersion);
  if (!types.length) return undefined;
  const resources: object[] = [];
  for (const t of types) {
    const i = t.info;
    resources.push({
      name: i.plural,
      singularName: i.singular,
      namespaced: i.namespaced,
      kind: i.kind,
      verbs: i.verbs,
      ...(i.shortNames.length ? { shortNames: i.shortNames } : {}),
      ...(i.categories ? { categories: i.categories } : {}),
      // Only stored resources have a storage version (reviews have none, as in kube-apiserver).
      ...(REVIEW_TYPES.includes(t) ? {} : { storageVersionHash: storageVersionHash(t) }),
    });
    for (const sub of i.subresources) {
      const { group, version, kind, verbs } = subresourceInfo(t, sub);
      resources.push({
        name: `${i.plural}/${sub}`,
        singularName: '',
        namespaced: i.namespaced,
        ...(group !== undefined ? { group, version } : {}),
        kind,
        verbs,
      });
    }
    if (i.kind === 'Namespace' && !i.group) {
      resources.push({
        name: 'namespaces/finalize',
        singularName: '',
        namespaced: false,
        kind: 'Namespace',
        verbs: ['update'],
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}
