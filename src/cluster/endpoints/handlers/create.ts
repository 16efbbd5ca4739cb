/** POST to a collection (k8s.io/apiserver's handlers/create.go). */
import {
  adoptRequestNamespace,
  bodyDuplicateFields,
  checkKind,
  checkResourceVersionUnset,
  decodeObject,
  decodeTyped,
} from '../decode';
import { newMethodNotSupported } from '../../apimachinery/errors';
import { sendWritten } from './response';
import { writeOptions, type RequestScope } from './scope';
import { admittedWrite, reviewOptions } from './admitted';

export async function createResource(s: RequestScope): Promise<void> {
  const { t, namespace } = s;
  if (t.info.namespaced && namespace === undefined) throw newMethodNotSupported(t.gr, 'create');
  const obj = decodeObject(s.body, s.req.headers['content-type'], t.info.kind);
  checkKind(obj, t, (apiVersion, kind) => !!s.cluster.registry.forKind({ apiVersion, kind }));
  // Decoded into its Go type once, here, as the apiserver's decoder does: the write reports the
  // unknown fields it dropped (fieldValidation) without walking the body again.
  const unknownFields = decodeTyped(t, obj);
  adoptRequestNamespace(obj, t, namespace);
  // Only the etcd store refuses it: a dry run's storage answers the object as it was sent.
  if (!s.dryRun) checkResourceVersionUnset(obj);
  const out = await admittedWrite(s, reviewOptions(s, 'CreateOptions'), (fresh) =>
    s.cluster.createAs(
      t,
      fresh(obj),
      writeOptions(s, unknownFields, bodyDuplicateFields(s.body, s.req.headers['content-type'])),
    ),
  );
  s.record?.objectsOf(undefined, out);
  return sendWritten(s, 201, out);
}
