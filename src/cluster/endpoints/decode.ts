/**
 * Decoding of request bodies, as the apiserver's serializers do it (runtime/serializer/json and
 * the patch handler): JSON, YAML or protobuf into an object, with its kind checked against the URL
 * and its nesting bounded. Go's decoder refuses input nested deeper than 10000 levels with
 * "exceeded max depth"; here the bound is lower (MAX_DEPTH), because the JavaScript engine's own
 * JSON serializer and the recursive merges and validators overflow the call stack a few thousand
 * levels deep, and a value that cannot be serialized must never reach the store.
 */
import YAML from 'yaml';
import { duplicateFields } from './duplicatefields';
import { goJsonSyntaxError } from '../api/gojsonscan';
import { goTypeOf } from '../api/apitypes';
import type { FieldError } from '../apimachinery/errors';
import {
  fieldInvalid,
  fieldNotSupported,
  newBadRequest,
  newInvalid,
  newUnknownStorageError,
  newUnsupportedMediaType,
  type StatusError,
} from '../apimachinery/errors';
import type { GoTypeError } from '../api/gotypes';
import { goTypeErrorMessage, jsonKind, typedDecode } from '../api/gotypes';
import { isObject } from '../apimachinery/patch';
import { decodeProtobufObject } from '../api/protobuf';
import type { ResourceType } from '../registry/registry';
import type { DeleteOptions, KubeObject, PatchType } from '../apimachinery/types';

/** The deepest nesting of objects and arrays a request may carry (the top-level value is depth 1). */
export const MAX_DEPTH = 1000;

export const MAX_DEPTH_MESSAGE = 'exceeded max depth';

/** Go's error for a number float64 cannot hold. */
const NON_FINITE_MESSAGE = 'json: cannot unmarshal number into Go value of type float64';

/**
 * metadata.managedFields mirror the object's own fields, a few levels down (managedFields, an
 * entry, fieldsV1, and `{}` for a leaf): they may be that much deeper than the bound, so that an
 * object as deep as the bound can be read and written back with them.
 */
const MANAGED_FIELDS_ENVELOPE = 8;

/**
 * Why a decoded value cannot be stored, if it cannot: nesting deeper than `max`, a number JSON
 * cannot carry (an overflowing literal, YAML's .inf/.nan, which would silently turn into null),
 * or a value that is not JSON at all (in-process callers). Iterative, so any depth is safe to
 * measure, and depth-first, so a cycle is caught by the bound.
 */
export function undecodable(value: unknown, max = MAX_DEPTH): string | undefined {
  const md = isObject(value) && isObject(value.metadata) ? value.metadata : undefined;
  const managed = md?.managedFields;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return NON_FINITE_MESSAGE;
    if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol')
      return `json: unsupported type: ${typeof v}`;
    if (typeof v !== 'object' || v === null) continue;
    if (d > max) return MAX_DEPTH_MESSAGE;
    for (const x of Array.isArray(v) ? v : Object.values(v)) {
      stack.push([x, v === md && x === managed ? d + 1 - MANAGED_FIELDS_ENVELOPE : d + 1]);
    }
  }
  return undefined;
}

/**
 * YAML as sigs.k8s.io/yaml reads it (go-yaml v2): YAML 1.1, so `y`, `yes`, `on` are true and
 * `n`, `no`, `off` false, `0777` is octal; but a timestamp stays a string and go-yaml has no
 * sexagesimal numbers (`12:30` is a string), so those two 1.1 tags are left out.
 */
const YAML_1_1: YAML.ParseOptions & YAML.DocumentOptions & YAML.SchemaOptions = {
  version: '1.1',
  customTags: (tags) =>
    tags.filter(
      (t) =>
        !(
          typeof t === 'object' &&
          (t.tag === 'tag:yaml.org,2002:timestamp' || t.format === 'TIME')
        ),
    ),
};

/**
 * Parses JSON or YAML text. A parser that runs out of stack on deep input reports it the way
 * the depth bound does, so the answer does not depend on which limit was hit first.
 */
function parse(text: string, yaml: boolean): unknown {
  let v: unknown;
  try {
    v = yaml ? YAML.parse(text, YAML_1_1) : JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    if (err instanceof RangeError || /Maximum call stack size exceeded/.test(msg))
      throw new SyntaxError(MAX_DEPTH_MESSAGE);
    throw err;
  }
  const why = undecodable(v);
  if (why) throw new SyntaxError(why);
  return v;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What a create or update body may be, as the apiserver's serializers accept. */
const OBJECT_MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
];

/**
 * A create or update body: an object with a metadata object, or a 400/415. `into`: the kind the
 * URL's resource decodes into; a body whose kind cannot even be found is then worded as
 * create.go's transformDecodeError words it (`the object provided is unrecognized (must be of
 * type ConfigMap): ... (summary)`).
 */
export function decodeObject(
  body: Buffer | undefined,
  contentType: string | undefined,
  into?: string,
): KubeObject {
  let obj: unknown;
  // NegotiateInputSerializer: no Content-Type means JSON; one the API does not speak is a 415.
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase() || 'application/json';
  if (!OBJECT_MEDIA_TYPES.includes(mediaType)) throw newUnsupportedMediaType(OBJECT_MEDIA_TYPES);
  const unrecognized = (cause: string) =>
    newBadRequest(
      into
        ? `the object provided is unrecognized (must be of type ${into}): ${cause} (${summarizeData(body)})`
        : cause,
    );
  if (mediaType === 'application/vnd.kubernetes.protobuf') {
    obj = decodeProtobufObject(body ?? new Uint8Array());
    checkDecodable(obj);
  } else {
    try {
      obj = parse(body?.toString('utf8') ?? '', mediaType === 'application/yaml');
    } catch (err) {
      // Go's words for JSON that is not JSON; the parser's own for the rest (depth, YAML).
      const goWords =
        mediaType === 'application/json' && err instanceof SyntaxError
          ? goJsonSyntaxError(body ?? Buffer.alloc(0))
          : undefined;
      throw unrecognized(`couldn't get version/kind; json parse error: ${goWords ?? message(err)}`);
    }
  }
  if (obj === null) throw newBadRequest("Object 'Kind' is missing in 'null'");
  if (!isObject(obj))
    throw unrecognized(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(obj)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  return obj as KubeObject;
}

/** summarizeData(body, 30): an object's first bytes as text, anything else's in hex. */
function summarizeData(body: Buffer | undefined): string {
  if (!body?.length) return '<empty>';
  const max = 30;
  const cut = body.length > max;
  const head = body.subarray(0, max);
  const shown = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return cut ? `${shown} ...` : shown;
}

/** The fields a JSON write body gives twice; none for YAML and protobuf bodies. */
export function bodyDuplicateFields(
  body: Buffer | undefined,
  contentType: string | undefined,
): string[] {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase() || 'application/json';
  return mediaType === 'application/json' && body ? duplicateFields(body.toString('utf8')) : [];
}

/**
 * The kind and version of a body must be the URL's (built-ins may omit both). `registered`
 * answers whether the release's scheme knows a kind at an apiVersion (the registry's forKind).
 */
export function checkKind(
  obj: KubeObject,
  t: ResourceType,
  registered: (apiVersion: string, kind: string) => boolean = () => false,
): void {
  // Built-in types decode into their Go type, which supplies a missing kind/apiVersion;
  // custom resources decode as unstructured and need both.
  if (!t.crd && !obj.kind && !obj.apiVersion) {
    obj.kind = t.info.kind;
    obj.apiVersion = t.apiVersion;
  }
  if (!obj.kind)
    throw newBadRequest(`Object 'Kind' is missing in '${JSON.stringify(obj).slice(0, 200)}'`);
  if (t.crd && obj.kind !== t.info.kind) {
    // Decoded as unstructured: the custom resource validator's ValidateTypeMeta refuses it, in
    // the body's own kind.
    throw newInvalid({ group: t.info.group, kind: String(obj.kind) }, obj.metadata.name ?? '', [
      fieldInvalid('kind', obj.kind, `must be ${t.info.kind}`),
    ]);
  }
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : t.apiVersion;
  if (!t.crd && (obj.kind !== t.info.kind || apiVersion !== t.apiVersion)) {
    const err = builtinDecodeError(String(obj.kind), apiVersion, t, registered);
    if (err) throw err;
  }
  if (obj.apiVersion && obj.apiVersion !== t.apiVersion) {
    throw newBadRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${t.apiVersion})`,
    );
  }
}

/**
 * A built-in body of another kind or group: the decoder decodes it as the type it names and fails
 * to convert that into the URL's internal type, or does not know the type at all; create.go's
 * transformDecodeError words either. The same kind at another version of its group converts.
 */
function builtinDecodeError(
  kind: string,
  apiVersion: string,
  t: ResourceType,
  registered: (apiVersion: string, kind: string) => boolean,
): StatusError | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const [group, version] =
    slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  if (kind === t.info.kind && internalPackage(group) === internalPackage(t.info.group))
    return undefined;
  const cause = registered(apiVersion, kind)
    ? `converting (${version}.${kind}) to (${internalPackage(t.info.group)}.${t.info.kind}): unknown conversion`
    : `no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:111"`;
  return newBadRequest(
    `${kind} in version "${version}" cannot be handled as a ${t.info.kind}: ${cause}`,
  );
}

/** The Go package of a group's internal types (k8s.io/kubernetes/pkg/apis/<name>). */
function internalPackage(group: string): string {
  if (group === '' || group === 'events.k8s.io') return 'core';
  if (group === 'rbac.authorization.k8s.io') return 'rbac';
  if (group === 'flowcontrol.apiserver.k8s.io') return 'flowcontrol';
  if (group === 'internal.apiserver.k8s.io') return 'apiserverinternal';
  return group.split('.')[0]!;
}

/**
 * etcd3 store's Create refuses an object whose resourceVersion parses as a non-zero number
 * (`storage.ErrResourceVersionSetOnCreate`); no storage-error conversion knows it, so clients get
 * it as a 500 with reason Unknown (an unparsable resourceVersion is ignored, as there).
 */
export function checkResourceVersionUnset(obj: KubeObject): void {
  const rv = obj.metadata.resourceVersion;
  if (typeof rv === 'string' && /^\d+$/.test(rv) && Number(rv) !== 0)
    throw newUnknownStorageError('resourceVersion should not be set on objects to be created');
}

/**
 * EnsureObjectNamespaceMatchesRequestNamespace of the create and update handlers: a namespaced
 * object takes the URL's namespace, and may not name another one.
 */
export function adoptRequestNamespace(
  obj: KubeObject,
  t: ResourceType,
  namespace: string | undefined,
): void {
  if (!t.info.namespaced) return;
  if (obj.metadata.namespace && obj.metadata.namespace !== namespace) {
    throw newBadRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  obj.metadata.namespace = namespace;
}

export function decodePatch(body: Buffer | undefined, type: PatchType): unknown {
  try {
    return parse(body?.toString('utf8') ?? '', type === 'apply');
  } catch (err) {
    throw newBadRequest(`error decoding patch: ${message(err)}`);
  }
}

/**
 * A boolean parameter: absent → undefined; "0", "false" in any case → false; any other value,
 * the empty string included → true (only the first value counts).
 */
export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/**
 * An integer query parameter (limit, timeoutSeconds) as the parameter codec converts it:
 * strconv.ParseInt's error is the 400.
 */
export function int64Param(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/**
 * DeleteOptions from the query and the (optional) body, JSON or — as client-go's typed clients send
 * it — protobuf (a meta.k8s.io/v1 DeleteOptions in the `k8s\0` envelope).
 */
export function decodeDeleteOptions(
  q: URLSearchParams,
  body: Buffer | undefined,
  contentType?: string,
): DeleteOptions {
  let fromBody: Record<string, unknown> = {};
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (body && body.length && mediaType === 'application/vnd.kubernetes.protobuf') {
    try {
      fromBody = decodeProtobufObject(body);
    } catch {
      throw newBadRequest('the body of the delete request could not be decoded as DeleteOptions');
    }
  } else if (body && body.length) {
    let parsed: unknown;
    try {
      parsed = parse(body.toString('utf8'), false);
    } catch {
      throw newBadRequest('the body of the delete request could not be decoded as DeleteOptions');
    }
    if (isObject(parsed)) fromBody = parsed;
    else if (parsed !== null)
      throw newBadRequest('the body of the delete request could not be decoded as DeleteOptions');
  }
  return deleteOptionsOf(q, fromBody);
}

/** DeleteOptions from the query and a decoded body (or an Eviction's `deleteOptions`). */
export function deleteOptionsOf(
  q: URLSearchParams,
  fromBody: Record<string, unknown>,
): DeleteOptions {
  const policy = (q.get('propagationPolicy') ?? fromBody.propagationPolicy) as
    DeleteOptions['propagationPolicy'] | undefined;
  const orphan = queryBool(q, 'orphanDependents') ?? fromBody.orphanDependents;
  const pre = isObject(fromBody.preconditions)
    ? (fromBody.preconditions as DeleteOptions['preconditions'])
    : undefined;
  const dryRun =
    q.getAll('dryRun').includes('All') ||
    (Array.isArray(fromBody.dryRun) && fromBody.dryRun.includes('All'));
  // ValidateDeleteOptions: a 422 on the options kind.
  const errs: FieldError[] = [];
  if (typeof orphan === 'boolean' && policy !== undefined)
    errs.push(
      fieldInvalid(
        'propagationPolicy',
        policy,
        'orphanDependents and deletionPropagation cannot be both set',
      ),
    );
  if (policy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(policy))
    errs.push(
      fieldNotSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']),
    );
  if (errs.length) throw newInvalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
  const grace =
    int64Param(q, 'gracePeriodSeconds') ??
    (typeof fromBody.gracePeriodSeconds === 'number' ? fromBody.gracePeriodSeconds : undefined);
  return {
    ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
    ...(policy
      ? { propagationPolicy: policy }
      : orphan === true
        ? { propagationPolicy: 'Orphan' as const }
        : {}),
    ...(typeof orphan === 'boolean' ? { orphanDependents: orphan } : {}),
    ...(pre ? { preconditions: pre } : {}),
    ...(dryRun ? { dryRun } : {}),
  };
}

/** An object a caller hands over (in-process writes skip decodeObject): bounded as a body is. */
export function checkDecodable(obj: unknown): void {
  const why = undecodable(obj);
  if (why) throw newBadRequest(`couldn't get version/kind; json parse error: ${why}`);
}

function typeErrorOf(t: ResourceType, obj: unknown, prune: boolean, timeErrors = true) {
  return typedDecode(
    obj,
    goTypeOf(t.info.group, t.info.version, t.info.kind, !!t.crd),
    prune,
    timeErrors,
  );
}

/**
 * Decodes a create or update object into its Go type: a value of the wrong JSON kind is the
 * decoder's 400 (`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot
 * unmarshal ...`); fields the type does not declare are dropped and returned (unknown fields).
 */
export function decodeTyped(t: ResourceType, obj: unknown, prune = true): string[] {
  const { error, unknown } = typeErrorOf(t, obj, prune);
  if (error)
    throw newBadRequest(
      `${t.info.kind} in version "${t.info.version}" cannot be handled as a ${t.info.kind}: ${goTypeErrorMessage(error)}`,
    );
  return unknown;
}

/**
 * A JSON, merge or strategic patch whose result does not decode into the Go type: the patch
 * handler's 422 on the field "patch", with the patched object as the value.
 */
export function checkPatchedTyped(t: ResourceType, patched: unknown): void {
  const { error } = typeErrorOf(t, patched, false);
  if (error)
    throw newInvalid({ group: '', kind: '' }, '', [
      fieldInvalid('patch', JSON.stringify(patched), goTypeErrorMessage(error)),
    ]);
}

/**
 * An apply configuration that does not fit the type: structured-merge-diff's typed conversion
 * error (`.metadata.name: expected string, got &value.valueUnstructured{Value:42}`), as a 400.
 */
export function checkAppliedTyped(t: ResourceType, applied: unknown): void {
  // Structured-merge-diff types a time as a plain string: only its stored form is rewritten here.
  const { error, unknown } = typeErrorOf(t, applied, false, false);
  const why = error
    ? smdMessage(error)
    : unknown.length
      ? `.${unknown[0]}: field not declared in schema`
      : undefined;
  if (!why) return;
  // Not a Status error: ErrorToAPIStatus answers 500 with no reason. The object is named as the
  // applied configuration names itself (a namespace it leaves out is empty).
  const md = isObject(applied) && isObject(applied.metadata) ? applied.metadata : {};
  const gvk = `${t.info.group}/${t.info.version}, Kind=${t.info.kind}`;
  throw newUnknownStorageError(
    `failed to create typed patch object (${String(md.namespace ?? '')}/${String(md.name ?? '')}; ${gvk}): ${why}`,
  );
}

/**
 * The merged result of an apply converted back to its Go type (structuredMergeManager.Apply's
 * toVersioned, after the merge and its conflicts): structured-merge-diff typed a time as a plain
 * string, so an applied time that does not parse fails only here, in metav1.Time's UnmarshalJSON.
 * That error is no Status: ErrorToAPIStatus answers it as a 500 with reason Unknown and the
 * field manager's wrapped message. `applied` names the object as the applied configuration does.
 */
export function checkAppliedTimes(t: ResourceType, applied: KubeObject): void {
  const { error } = typeErrorOf(t, applied, false, true);
  if (!error) return;
  const gvk = `${t.info.group}/${t.info.version}, Kind=${t.info.kind}`;
  const md = isObject(applied.metadata) ? applied.metadata : {};
  const nn = `${String(md.namespace ?? '')}/${String(md.name ?? '')}`;
  throw newUnknownStorageError(
    `failed to convert new object (${nn}; ${gvk}) to proper version: unable to convert unstructured object to ${gvk}: ${goTypeErrorMessage(error)}`,
  );
}

const SMD_KIND: Partial<Record<GoTypeError['want'], string>> = {
  bool: 'boolean',
  int: 'numeric (int or float)',
  float: 'numeric (int or float)',
  map: 'map',
  struct: 'map',
  slice: 'list',
};

/** Go's %#v of a decoded JSON value (int64 for whole numbers, as the YAML and JSON decoders give). */
function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (typeof v === 'object') {
    const entries = Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goSyntax((v as Record<string, unknown>)[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

function smdMessage(e: GoTypeError): string {
  if (e.message) return `${e.path}: ${e.message}`;
  // structured-merge-diff prints the offending value as Go's %#v of its wrapper.
  return `${e.path}: expected ${SMD_KIND[e.want] ?? 'string'}, got &value.valueUnstructured{Value:${goSyntax(e.found)}}`;
}
