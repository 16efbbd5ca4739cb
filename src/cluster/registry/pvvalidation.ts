/**
 * ValidatePersistentVolumeSpec (pkg/apis/core/validation of the pinned release) for a
 * PersistentVolume object (not an inline volume): access modes, capacity, reclaim policy, node
 * affinity's presence, exactly one volume source, class and volume mode. Of the volume sources'
 * own rules, those of the sources a local or test cluster uses are ported (hostPath, local, nfs,
 * csi); the cloud and legacy in-tree sources are counted but not checked inside. A capacity
 * that is not positive is named as sent, where upstream writes the Quantity's canonical form.
 * Also the strategies' PrepareForUpdate (the release's reset fields, then the phase's transition
 * time). Not yet ValidatePersistentVolumeUpdate's rules (which fields may change once set).
 */
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  type FieldError,
} from '../apimachinery/errors';
import { validateName } from '../apimachinery/names';
import { isObject } from '../apimachinery/patch';
import { parseQuantity } from '../apimachinery/quantity';
import { resetFields, resetPaths } from '../api/resetfields';
import type { KubeObject } from '../apimachinery/types';
import { rec, str } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;

/** Sorted as sets.List gives them. */
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const VOLUME_MODES = ['Block', 'Filesystem'];
const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
];

/**
 * The volume sources in the order ValidatePersistentVolumeSpec checks them, each with the name
 * its "more than 1 volume type" error gives it (cephfs is `cephFS` there). flexVolume is counted
 * without that check, as upstream does.
 */
const SOURCES: ReadonlyArray<readonly [field: string, errorName: string | undefined]> = [
  ['hostPath', 'hostPath'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['nfs', 'nfs'],
  ['rbd', 'rbd'],
  ['quobyte', 'quobyte'],
  ['cephfs', 'cephFS'],
  ['iscsi', 'iscsi'],
  ['cinder', 'cinder'],
  ['fc', 'fc'],
  ['flexVolume', undefined],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['scaleIO', 'scaleIO'],
  ['local', 'local'],
  ['storageos', 'storageos'],
  ['csi', 'csi'],
];

export function validatePersistentVolume(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs: FieldError[] = [];
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes.map(str) : [];
  if (modes.length === 0) errs.push(fieldRequired('spec.accessModes'));
  let oncePod = false;
  let other = false;
  for (const mode of modes) {
    if (!ACCESS_MODES.includes(mode))
      errs.push(fieldNotSupported('spec.accessModes', mode, ACCESS_MODES));
    if (mode === 'ReadWriteOncePod') oncePod = true;
    else if (ACCESS_MODES.includes(mode)) other = true;
  }
  if (oncePod && other)
    errs.push(
      fieldForbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'),
    );
  const capacity = isObject(spec.capacity) ? spec.capacity : undefined;
  const resources = Object.keys(capacity ?? {});
  if (resources.length === 0) errs.push(fieldRequired('spec.capacity'));
  if (!resources.includes('storage') || resources.length > 1)
    errs.push(fieldNotSupported('spec.capacity', capacity ?? null, ['storage']));
  for (const r of resources) {
    const q = parseQuantity(capacity![r]);
    if (q !== undefined && q <= 0)
      errs.push(fieldInvalid(`spec.capacity[${r}]`, capacity![r], 'must be greater than zero'));
  }
  const reclaim = str(spec.persistentVolumeReclaimPolicy);
  if (reclaim && !RECLAIM_POLICIES.includes(reclaim))
    errs.push(fieldNotSupported('spec.persistentVolumeReclaimPolicy', reclaim, RECLAIM_POLICIES));
  const affinity = isObject(spec.nodeAffinity);
  if (affinity && !isObject(rec(spec.nodeAffinity).required))
    errs.push(
      fieldRequired('spec.nodeAffinity.required', 'must specify required node constraints'),
    );
  let volumes = 0;
  for (const [field, errorName] of SOURCES) {
    if (!isObject(spec[field])) continue;
    if (volumes > 0 && errorName !== undefined) {
      errs.push(fieldForbidden(`spec.${errorName}`, 'may not specify more than 1 volume type'));
      continue;
    }
    volumes++;
    errs.push(...sourceErrors(field, rec(spec[field]), `spec.${field}`));
    if (field === 'local' && !affinity)
      errs.push(fieldRequired('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (volumes === 0) errs.push(fieldRequired('spec', 'must specify a volume type'));
  const hostPath = str(rec(spec.hostPath).path);
  if (isObject(spec.hostPath) && cleanPath(hostPath) === '/' && reclaim === 'Recycle')
    errs.push(
      fieldForbidden(
        'spec.persistentVolumeReclaimPolicy',
        "may not be 'recycle' for a hostPath mount of '/'",
      ),
    );
  const className = str(spec.storageClassName);
  if (className)
    for (const m of validateName(className, 'subdomain'))
      errs.push(fieldInvalid('spec.storageClassName', className, m));
  if (typeof spec.volumeMode === 'string' && !VOLUME_MODES.includes(spec.volumeMode))
    errs.push(fieldNotSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  return errs;
}

/** The rules of the sources ported here; others are only counted. */
function sourceErrors(field: string, src: Obj, at: string): FieldError[] {
  switch (field) {
    case 'hostPath':
    case 'local': {
      const p = str(src.path);
      if (!p) return [fieldRequired(`${at}.path`)];
      const errs = p.split('/').includes('..')
        ? [fieldInvalid(`${at}.path`, p, "must not contain '..'")]
        : [];
      if (
        field === 'hostPath' &&
        typeof src.type === 'string' &&
        !HOST_PATH_TYPES.includes(src.type)
      )
        errs.push(fieldNotSupported(`${at}.type`, src.type, HOST_PATH_TYPES));
      return errs;
    }
    case 'nfs': {
      const errs: FieldError[] = [];
      if (!str(src.server)) errs.push(fieldRequired(`${at}.server`));
      const p = str(src.path);
      if (!p) errs.push(fieldRequired(`${at}.path`));
      if (!p.startsWith('/')) errs.push(fieldInvalid(`${at}.path`, p, 'must be an absolute path'));
      return errs;
    }
    case 'csi': {
      const errs: FieldError[] = [];
      const driver = str(src.driver);
      if (!driver) errs.push(fieldRequired(`${at}.driver`));
      else {
        if (driver.length > 63) errs.push(fieldTooLong(`${at}.driver`, 63));
        for (const m of validateName(driver.toLowerCase(), 'subdomain'))
          errs.push(fieldInvalid(`${at}.driver`, driver, m));
      }
      if (!str(src.volumeHandle)) errs.push(fieldRequired(`${at}.volumeHandle`));
      return errs;
    }
    default:
      return [];
  }
}

/** path.Clean, enough to tell a path that is the root. */
function cleanPath(p: string): string {
  const parts: string[] = [];
  for (const s of p.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') parts.pop();
    else parts.push(s);
  }
  return (p.startsWith('/') ? '/' : '') + parts.join('/') || '.';
}

/**
 * persistentvolumeStrategy's and persistentvolumeStatusStrategy's PrepareForUpdate: the reset
 * fields (the status through the main resource, the spec through /status), then, on a status
 * write, the phase's transition time: kept while the phase stays, now when it changes and the
 * writer did not set one.
 */
export function preparePersistentVolumeForUpdate(
  next: KubeObject,
  old: KubeObject,
  subresource: string,
  now: string,
): void {
  const n = next as Obj;
  const o = old as Obj;
  resetFields(n, o, resetPaths('', 'PersistentVolume', subresource, 'v1') ?? []);
  if (subresource !== 'status') return;
  const status = rec(n.status);
  const was = rec(o.status);
  const set =
    status.lastPhaseTransitionTime !== undefined && status.lastPhaseTransitionTime !== null;
  if (status.phase === was.phase && !set) {
    if (was.lastPhaseTransitionTime !== undefined)
      status.lastPhaseTransitionTime = was.lastPhaseTransitionTime;
  } else if (
    status.phase !== was.phase &&
    (!set || status.lastPhaseTransitionTime === was.lastPhaseTransitionTime)
  )
    status.lastPhaseTransitionTime = now;
  n.status = status;
}
