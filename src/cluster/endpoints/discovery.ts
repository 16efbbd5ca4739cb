/**
 * Discovery documents (/api, /apis, /api/v1, /apis/<group>/<version>) and /version. Built-in
 * group-versions answer the pinned release's own documents (apidata.ts); a CRD's resources are
 * added from the registry the moment it is established, as apiextensions-apiserver adds them.
 */
import { apiData } from '../api/apidata';
import type { ApiResourceList, ReleaseVersion } from '../api/apidata';
import { subresourceInfo } from '../registry/registry';
import type { Registry, ResourceType } from '../registry/registry';
import { createHash } from 'node:crypto';

/** Go's names of the platform Node runs on (kube-apiserver reports runtime.GOOS/GOARCH). */
const GOOS: Record<string, string> = { win32: 'windows' };
const GOARCH: Record<string, string> = { x64: 'amd64', ia32: '386', ppc64: 'ppc64le' };

export interface ServerVersion extends ReleaseVersion {
  platform: string;
}

/** /version: the pinned release, as a build of its tag reports itself. */
export function serverVersion(): ServerVersion {
  return {
    ...apiData().version,
    platform: `${GOOS[process.platform] ?? process.platform}/${GOARCH[process.arch] ?? process.arch}`,
  };
}

/**
 * discovery.StorageVersionHash: the first 8 bytes of the SHA-256 of a storage group/version/kind,
 * base64.
 */
export function storageVersionHashOf(group: string, version: string, kind: string): string {
  return createHash('sha256')
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

/** A CRD's storage version hash: of its storage version, whichever version is asked. */
function storageVersionHash(t: ResourceType): string {
  const version = t.storageApiVersion?.split('/').pop() ?? t.info.version;
  return storageVersionHashOf(t.info.group, version, t.info.kind);
}

/** The resources CRDs add (built-ins are the release's documents). */
export function crdTypes(reg: Registry): ResourceType[] {
  return reg.all().filter((t) => t.crd !== undefined);
}

export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: apiData()
      .groups.filter((g) => !g.name)
      .flatMap((g) => g.versions.map((v) => v.version)),
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

interface GroupVersions {
  versions: string[];
  preferred: string;
}

/**
 * Groups as /apis lists them: the release's, in its order, then the CRDs' groups in the order
 * they were established; a CRD group's versions newest first (v2 > v1 > v1beta1).
 */
function groups(reg: Registry): Map<string, GroupVersions> {
  const out = new Map<string, GroupVersions>();
  for (const g of apiData().groups) {
    if (g.name)
      out.set(g.name, {
        versions: g.versions.map((v) => v.version),
        preferred: g.preferredVersion,
      });
  }
  const crdGroups = new Map<string, string[]>();
  for (const t of crdTypes(reg)) {
    if (out.has(t.info.group)) continue;
    const vs = crdGroups.get(t.info.group) ?? [];
    if (!vs.includes(t.info.version)) vs.push(t.info.version);
    crdGroups.set(t.info.group, vs);
  }
  for (const [g, vs] of crdGroups) {
    vs.sort(compareVersions);
    out.set(g, { versions: vs, preferred: vs[0] });
  }
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

function groupDoc(name: string, g: GroupVersions): object {
  const gv = (v: string) => ({ groupVersion: `${name}/${v}`, version: v });
  return { name, versions: g.versions.map(gv), preferredVersion: gv(g.preferred) };
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

/** The release's APIResourceList of a built-in group-version. */
export function builtinResourceList(groupVersion: string): ApiResourceList | undefined {
  for (const g of apiData().groups)
    for (const v of g.versions) if (v.list.groupVersion === groupVersion) return v.list;
  return undefined;
}

export function apiResourceList(reg: Registry, groupVersion: string): object | undefined {
  const builtin = builtinResourceList(groupVersion);
  const types = crdTypes(reg).filter((t) => t.apiVersion === groupVersion);
  if (!types.length) return builtin;
  const resources: object[] = [...(builtin?.resources ?? [])];
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
      storageVersionHash: storageVersionHash(t),
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
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}
