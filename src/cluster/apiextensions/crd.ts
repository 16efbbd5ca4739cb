/**
 * CustomResourceDefinitions: validation of the CRD itself, the resource types each served
 * version adds to the registry, and the status the apiextensions controllers write
 * (NamesAccepted, Established, acceptedNames, storedVersions).
 */
import type { FieldError } from '../apimachinery/errors';
import { fieldInvalid, fieldRequired, fieldNotSupported } from '../apimachinery/errors';
import { validateSchemaRules } from './crdvalidationrules';
import type { PrinterColumn, ResourceType } from '../registry/registry';
import { compileSchema } from './schema';
import type { JSONSchemaProps } from './schema';
import type { KubeObject } from '../apimachinery/types';
import { crdConversion } from './conversion';
import {
  conversionValidationOptions,
  defaultConversion,
  validateConversion,
} from './conversionvalidation';
import { rec } from '../apimachinery/unstructured';
import { deepEqual } from '../apimachinery/patch';

type Obj = Record<string, unknown>;

export const CRD_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: {
    status?: object;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: PrinterColumn[];
}

export function crdVersions(crd: KubeObject): CrdVersion[] {
  const v = rec(crd.spec).versions;
  return Array.isArray(v) ? (v as CrdVersion[]) : [];
}

export function validateCrd(obj: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(obj.spec);
  const names = rec(spec.names);
  const group = typeof spec.group === 'string' ? spec.group : '';
  if (!group) errs.push(fieldRequired('spec.group'));
  else if (!group.includes('.'))
    errs.push(fieldInvalid('spec.group', group, 'should be a domain with at least one dot'));
  if (!names.plural) errs.push(fieldRequired('spec.names.plural'));
  if (!names.kind) errs.push(fieldRequired('spec.names.kind'));
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
  if (names.plural && group && obj.metadata.name !== `${names.plural}.${group}`) {
    errs.push(
      fieldInvalid('metadata.name', obj.metadata.name, 'must be spec.names.plural+"."+spec.group'),
    );
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    if (spec.scope === undefined) errs.push(fieldRequired('spec.scope'));
    else errs.push(fieldNotSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  }
  const versions = crdVersions(obj);
  if (versions.length === 0)
    errs.push(
      fieldInvalid(
        'spec.versions',
        versions,
        'must have exactly one version marked as storage version',
      ),
    );
  else {
    const storage = versions.filter((v) => v.storage).length;
    if (storage !== 1)
      errs.push(
        fieldInvalid(
          'spec.versions',
          versions.map((v) => v.name),
          'must have exactly one version marked as storage version',
        ),
      );
    // The internal CRD holds one schema in spec.validation when every version's is the same
    // (v1's conversion moves it there), so its errors are reported there, once.
    const shared = versions.every((v) => deepEqual(v.schema, versions[0].schema))
      ? versions[0].schema?.openAPIV3Schema
      : undefined;
    if (shared) errs.push(...validateSchemaRules(shared, 'spec.validation.openAPIV3Schema'));
    else
      versions.forEach((v, i) => {
        const path = `spec.versions[${i}].schema.openAPIV3Schema`;
        const schema = v.schema?.openAPIV3Schema;
        if (!schema) errs.push(fieldRequired(path, 'schemas are required'));
        // x-kubernetes-validations rules must compile before the CRD is stored.
        else errs.push(...validateSchemaRules(schema, path));
      });
  }
  defaultConversion(spec);
  errs.push(
    ...validateConversion(spec, conversionValidationOptions(old ? rec(old.spec) : undefined)),
  );
  if (old) {
    const os = rec(old.spec);
    if (os.scope !== spec.scope)
      errs.push(fieldInvalid('spec.scope', spec.scope, 'field is immutable'));
    if (os.group !== spec.group)
      errs.push(fieldInvalid('spec.group', spec.group, 'field is immutable'));
  }
  return errs;
}

/** The resource types a CRD serves, one per served version. */
export function crdResourceTypes(crd: KubeObject): ResourceType[] {
  const spec = rec(crd.spec);
  const names = rec(spec.names);
  const group = String(spec.group);
  const plural = String(names.plural);
  const kind = String(names.kind);
  const out: ResourceType[] = [];
  const conversion = crdConversion(crd);
  const storage = crdVersions(crd).find((v) => v.storage);
  for (const v of crdVersions(crd)) {
    if (!v.served) continue;
    const subresources: string[] = [];
    if (v.subresources?.status) subresources.push('status');
    if (v.subresources?.scale) subresources.push('scale');
    const root = v.schema?.openAPIV3Schema;
    out.push({
      info: {
        group,
        version: v.name,
        kind,
        listKind: String(names.listKind ?? `${kind}List`),
        plural,
        singular: String(names.singular ?? kind.toLowerCase()),
        namespaced: spec.scope !== 'Cluster',
        verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
        subresources,
        shortNames: Array.isArray(names.shortNames) ? (names.shortNames as string[]) : [],
        ...(Array.isArray(names.categories) ? { categories: names.categories as string[] } : {}),
      },
      apiVersion: `${group}/${v.name}`,
      storageKey: `${group}/${plural}`,
      gr: { group, resource: plural },
      statusSubresource: !!v.subresources?.status,
      ...(v.subresources?.scale ? { scale: v.subresources.scale } : {}),
      crd: crd.metadata.name,
      conversion,
      ...(storage ? { storageApiVersion: `${group}/${storage.name}` } : {}),
      ...(root ? { schema: compileSchema(root, v.subresources?.scale) } : {}),
      printerColumns: v.additionalPrinterColumns ?? [],
    });
  }
  return out;
}

/** The Terminating condition the CRD REST's first delete sets. */
export const CRD_DELETION_PENDING = {
  type: 'Terminating',
  status: 'True',
  reason: 'InstanceDeletionPending',
  message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
};

/**
 * The status a CRD is stored with (the strategy's PrepareForCreate and PrepareForUpdate): on
 * create, empty accepted names and only its storage version stored; on an update, the old status
 * with the storage version added to `storedVersions`, so a storage version that changes leaves
 * the old one listed until a migration removes it. The names are accepted and the CRD is
 * established afterwards, by the naming controller (crdnaming.ts).
 */
export function preparedStatus(crd: KubeObject, old?: KubeObject): Obj {
  const base = old ? rec(old.status) : { acceptedNames: { plural: '', kind: '' } };
  return { ...base, storedVersions: storedVersions(crd, old) };
}

/** A CRD condition as the helpers write it: the transition time kept while the status stays. */
export function setCrdCondition(
  status: Obj,
  cond: { type: string; status: string; reason: string; message: string },
  now: string,
): void {
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
  const i = conditions.findIndex((c) => c.type === cond.type);
  const kept = i >= 0 && conditions[i]!.status === cond.status;
  const next = {
    ...cond,
    lastTransitionTime: kept ? conditions[i]!.lastTransitionTime : now,
  };
  const out = [...conditions];
  // SetCRDCondition: type, status, lastTransitionTime, reason, message, in that order.
  const ordered = {
    type: next.type,
    status: next.status,
    lastTransitionTime: next.lastTransitionTime,
    reason: next.reason,
    message: next.message,
  };
  if (i >= 0) out[i] = ordered;
  else out.push(ordered);
  status.conditions = out;
}

/**
 * The status the naming controller writes: the spec's names accepted and NamesAccepted; a CRD not
 * yet Established is "Installing" until the establishing controller sees the names accepted
 * (`establishedStatus`) — two writes, so the endpoint is served before it is said Established.
 * Undefined when there is nothing to change.
 */
export function acceptedStatus(crd: KubeObject, now: string): Obj | undefined {
  const current = rec(crd.status);
  const names = rec(rec(crd.spec).names);
  const acceptedNames = {
    plural: names.plural,
    ...(names.singular ? { singular: names.singular } : {}),
    ...(names.shortNames ? { shortNames: names.shortNames } : {}),
    kind: names.kind,
    listKind: names.listKind ?? `${String(names.kind)}List`,
    ...(names.categories ? { categories: names.categories } : {}),
  };
  const next: Obj = { ...current, acceptedNames };
  setCrdCondition(
    next,
    { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
    now,
  );
  if (!hasCondition(current, 'Established', 'True'))
    setCrdCondition(
      next,
      {
        type: 'Established',
        status: 'False',
        reason: 'Installing',
        message: 'the initial names have been accepted',
      },
      now,
    );
  return deepEqual(next, current) ? undefined : next;
}

/**
 * The establishing controller's write: a CRD whose names are accepted and that is not yet
 * Established becomes so. Undefined when there is nothing to change.
 */
export function establishedStatus(crd: KubeObject, now: string): Obj | undefined {
  const current = rec(crd.status);
  if (
    !hasCondition(current, 'NamesAccepted', 'True') ||
    hasCondition(current, 'Established', 'True')
  )
    return undefined;
  const next: Obj = { ...current };
  setCrdCondition(
    next,
    {
      type: 'Established',
      status: 'True',
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    },
    now,
  );
  return next;
}

function hasCondition(status: Obj, type: string, value: string): boolean {
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
  return conditions.some((c) => c.type === type && c.status === value);
}

function storedVersions(crd: KubeObject, old: KubeObject | undefined): string[] {
  const before = rec(old?.status).storedVersions;
  const out = Array.isArray(before) ? before.filter((v) => typeof v === 'string') : [];
  const storage = crdVersions(crd).find((v) => v.storage);
  if (storage && !out.includes(storage.name)) out.push(storage.name);
  return out;
}
