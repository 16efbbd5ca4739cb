/**
 * PATCH of one object (k8s.io/apiserver's handlers/patch.go): the Content-Type names the patch
 * type; server-side apply creates the object when it is missing (201).
 */
import { decodePatch } from '../decode';
import { newUnsupportedMediaType } from '../../apimachinery/errors';
import { queryBool } from '../../apimachinery/listoptions';
import { validateWriteOptions } from '../../apimachinery/optionsvalidation';
import type { PatchType, UpdateSubresource } from '../../apimachinery/types';
import { sendWritten } from './response';
import { objectKey, writeOptions, type RequestScope } from './scope';
import { admittedWrite, reviewOptions } from './admitted';

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

export async function patchResource(s: RequestScope, name: string): Promise<void> {
  const { cluster, q, subresource } = s;
  const key = objectKey(s, name);
  const before = cluster.peek(s.type, key);
  const ct = (s.req.headers['content-type'] ?? '').split(';')[0].trim();
  const patchType = PATCH_TYPES[ct];
  if (!patchType) throw newUnsupportedMediaType(ct);
  validateWriteOptions('PATCH', q, patchType);
  const patch = decodePatch(s.body, patchType);
  const existed = before !== undefined;
  const force = queryBool(q, 'force') === true;
  const options = reviewOptions(s, 'PatchOptions', force ? { force } : {});
  const out = await admittedWrite(s, options, (fresh) =>
    cluster.patchAs(s.t, key, fresh(patch), patchType, {
      ...writeOptions(s),
      // Apply names no default manager: the apiserver refuses an apply without one.
      fieldManager: q.get('fieldManager') ?? (patchType === 'apply' ? '' : s.fieldManager),
      force,
      ...(subresource ? { subresource: subresource as UpdateSubresource } : {}),
    }),
  );
  s.record?.objectsOf(before, out);
  return sendWritten(s, !existed && !s.dryRun ? 201 : 200, out);
}
