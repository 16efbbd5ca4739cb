/**
 * The type checking of a ValidatingAdmissionPolicy's expressions (k8s.io/apiserver
 * pkg/admission/plugin/policy/validating/typechecking.go), as kube-controller-manager's
 * validatingadmissionpolicy-status controller runs it:
 * - typesToCheck: the kinds the policy's resource rules name without a wildcard (subresources
 *   skipped), through the REST mapping, sorted by group, version and kind, at most 10 per rule;
 * - each kind's schema as the controller's resolver finds it — a built-in kind's definition from
 *   the release's OpenAPI v3 document (the generated definitions it is made of), a custom
 *   resource's as apiextensions-apiserver publishes it (the CRD's schema with apiVersion, kind and
 *   metadata as ObjectMeta) — its references resolved as PopulateRefs does (a cycle is an empty
 *   object) and declared as common.SchemaDeclType declares it (a property whose schema has no
 *   type, such as a Quantity, is no field);
 * - each validation's expression and messageExpression checked per kind with `object` and
 *   `oldObject` of that type, `params` of paramKind's (dyn when it cannot be resolved),
 *   `request` and `namespaceObject` as the admission plugin declares them, `variables` with a
 *   field per variable typed by its expression (dyn when that does not check), `authorizer` dyn.
 * The checker is celcompilation.ts's, with references assumed: the apiserver compiled these
 * expressions when it admitted the policy, so only what the types say is reported. A warning is
 * `<group>/<version>, Kind=<kind>: <cel-go issues>\n` per kind that fails, joined by newlines.
 */
import type { JSONSchemaProps } from '../apiextensions/jsonschema';
import type { StaticType } from '../apiextensions/celcompilation';
import { checkExpression } from '../apiextensions/celcompilation';
import { openapiV3Text } from '../api/apidata';
import type { KubeObject } from '../apimachinery/types';
import { rec } from '../apimachinery/unstructured';
import type { ResourceType } from '../registry/registry';

const MAX_TYPES_TO_CHECK = 10;

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** schema.GroupVersionKind's String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
export function gvkString(g: Gvk): string {
  return `${g.group}/${g.version}, Kind=${g.kind}`;
}

// ------------------------------------------------------------------ typesToCheck

interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The kinds of group/version/resource, as RESTMapper.KindsFor finds them (plural or singular). */
function kindsFor(types: ResourceType[], group: string, version: string, resource: string): Gvk[] {
  const r = resource.toLowerCase();
  const t = types.find(
    (t) =>
      t.info.group === group &&
      t.info.version === version &&
      (t.info.plural === r || t.info.singular === r),
  );
  return t ? [{ group, version, kind: t.info.kind }] : [];
}

function compareGvk(a: Gvk, b: Gvk): number {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.kind, b.kind);
}

/** typesToCheck: the kinds a policy's resource rules name, sorted; none for a wildcard rule. */
export function typesToCheck(policy: KubeObject, types: ResourceType[]): Gvk[] {
  const rules = rec(rec(policy.spec).matchConstraints).resourceRules;
  if (!Array.isArray(rules) || !rules.length) return [];
  const found = new Map<string, Gvk>();
  const sorted = () => [...found.values()].sort(compareGvk);
  for (const raw of rules as Rule[]) {
    const groups = strings(raw.apiGroups);
    if (!groups.length || groups.some((g) => g.includes('*'))) continue;
    const versions = strings(raw.apiVersions);
    if (!versions.length || versions.some((v) => v.includes('*'))) continue;
    const resources = strings(raw.resources).filter((r) => !/[*/]/.test(r));
    if (!resources.length) continue;
    let count = 0;
    for (const group of [...groups].sort())
      for (const version of [...versions].sort())
        for (const resource of [...resources].sort())
          for (const gvk of kindsFor(types, group, version, resource)) {
            found.set(gvkString(gvk), gvk);
            if (++count === MAX_TYPES_TO_CHECK) return sorted();
          }
  }
  return sorted();
}

// ------------------------------------------------------------------ schemas

/** An OpenAPI v3 schema as the documents spell it. */
type OpenApiSchema = Record<string, unknown>;

interface SchemaSource {
  /** The schema a `$ref` names, undefined when the document has none. */
  ref(ref: string): OpenApiSchema | undefined;
}

/** A reference the resolver cannot follow: the kind's schema is not resolved (upstream's error). */
class UnresolvedRef extends Error {}

const REF_PREFIX = '#/components/schemas/';
const OBJECT_META = `${REF_PREFIX}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`;

/** refOf: a `$ref`, or one wrapped in allOf (kube-openapi keeps a ref's description that way). */
function refOf(s: OpenApiSchema): string | undefined {
  if (typeof s.$ref === 'string') return s.$ref;
  if (Array.isArray(s.allOf))
    for (const a of s.allOf as OpenApiSchema[]) {
      const r = refOf(a);
      if (r) return r;
    }
  return undefined;
}

const isObj = (v: unknown): v is OpenApiSchema =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function typeOf(s: OpenApiSchema): string {
  const t = s.type;
  return typeof t === 'string' ? t : Array.isArray(t) && typeof t[0] === 'string' ? t[0] : '';
}

const STRING: JSONSchemaProps = { type: 'string' };

/**
 * SchemaDeclType over a schema whose references are resolved as PopulateRefs resolves them,
 * as the JSON schema celcompilation's checker types values by: undefined when the schema is not
 * exposed to CEL. `visited` holds the references being expanded (a cycle is an empty object).
 */
function declSchema(
  raw: OpenApiSchema,
  src: SchemaSource,
  visited: Set<string>,
  isResourceRoot: boolean,
): JSONSchemaProps | undefined {
  const ref = refOf(raw);
  let s = raw;
  if (ref !== undefined) {
    if (visited.has(ref)) s = { type: 'object' };
    else {
      const resolved = src.ref(ref);
      if (!resolved) throw new UnresolvedRef(ref);
      visited.add(ref);
      try {
        return declSchema(resolved, src, visited, isResourceRoot);
      } finally {
        visited.delete(ref);
      }
    }
  }
  if (s.format === 'int-or-string' || s['x-kubernetes-int-or-string'] === true)
    return { 'x-kubernetes-int-or-string': true };
  if (isResourceRoot) s = withTypeAndObjectMeta(s, src);
  const child = (c: OpenApiSchema) => declSchema(c, src, visited, isEmbedded(c, src));
  switch (typeOf(s)) {
    case 'array': {
      if (!isObj(s.items)) return undefined;
      const items = child(s.items);
      return items && { type: 'array', items };
    }
    case 'object': {
      if (isObj(s.additionalProperties)) {
        const values = child(s.additionalProperties);
        return values && { type: 'object', additionalProperties: values };
      }
      const properties: Record<string, JSONSchemaProps> = {};
      for (const [name, p] of Object.entries(isObj(s.properties) ? s.properties : {})) {
        if (!isObj(p)) continue;
        const t = child(p);
        if (t) properties[name] = t;
      }
      return { type: 'object', properties };
    }
    case 'string':
      return ['byte', 'duration', 'date', 'date-time'].includes(String(s.format))
        ? { type: 'string', format: String(s.format) }
        : STRING;
    case 'boolean':
    case 'number':
    case 'integer':
      return { type: typeOf(s) };
    default:
      return undefined;
  }
}

/** The schema a reference (or none) stands for: what PopulateRefs puts in its place. */
function resolved(s: OpenApiSchema, src: SchemaSource): OpenApiSchema {
  const ref = refOf(s);
  return (ref !== undefined && src.ref(ref)) || s;
}

function isEmbedded(s: OpenApiSchema, src: SchemaSource): boolean {
  return resolved(s, src)['x-kubernetes-embedded-resource'] === true;
}

/**
 * WithTypeAndObjectMeta: a resource root keeps its own kind, apiVersion and metadata when they
 * are typed (a built-in kind's ObjectMeta), else gets kind, apiVersion and metadata.name and
 * generateName as strings.
 */
function withTypeAndObjectMeta(s: OpenApiSchema, src: SchemaSource): OpenApiSchema {
  const props = isObj(s.properties) ? s.properties : undefined;
  const prop = (o: OpenApiSchema | undefined, n: string) =>
    o && isObj(o[n]) ? resolved(o[n] as OpenApiSchema, src) : undefined;
  const isType = (o: OpenApiSchema | undefined, t: string) => !!o && typeOf(o) === t;
  const meta = prop(props, 'metadata');
  const metaProps = meta && isObj(meta.properties) ? meta.properties : undefined;
  if (
    isType(prop(props, 'kind'), 'string') &&
    isType(prop(props, 'apiVersion'), 'string') &&
    isType(meta, 'object') &&
    isType(prop(metaProps, 'name'), 'string') &&
    isType(prop(metaProps, 'generateName'), 'string')
  )
    return s;
  return {
    ...s,
    properties: {
      ...(props ?? {}),
      kind: STRING,
      apiVersion: STRING,
      metadata: { type: 'object', properties: { name: STRING, generateName: STRING } },
    },
  };
}

/** A release v3 document's component schemas, by name. */
interface Document extends SchemaSource {
  schemas: Record<string, OpenApiSchema>;
}

/** The release's v3 documents, parsed once each. */
const documents = new Map<string, Document | undefined>();

function documentOf(path: string): Document | undefined {
  if (!documents.has(path)) {
    const text = openapiV3Text(path);
    const schemas = text
      ? (rec(rec(JSON.parse(text) as unknown).components).schemas as Record<string, OpenApiSchema>)
      : undefined;
    documents.set(
      path,
      schemas && {
        schemas,
        ref: (r) =>
          r.startsWith(REF_PREFIX) && Object.hasOwn(schemas, r.slice(REF_PREFIX.length))
            ? schemas[r.slice(REF_PREFIX.length)]
            : undefined,
      },
    );
  }
  return documents.get(path);
}

const v3Path = (g: Gvk) => (g.group ? `apis/${g.group}/${g.version}` : `api/${g.version}`);

/** The definition of a built-in kind: the document's schema carrying its group-version-kind. */
function builtinSchema(gvk: Gvk): { root: OpenApiSchema; src: SchemaSource } | undefined {
  const doc = documentOf(v3Path(gvk));
  if (!doc) return undefined;
  for (const [name, s] of Object.entries(doc.schemas)) {
    const gvks = s['x-kubernetes-group-version-kind'];
    if (
      Array.isArray(gvks) &&
      (gvks as Gvk[]).some(
        (g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind,
      )
    )
      return { root: { $ref: `${REF_PREFIX}${name}` }, src: doc };
  }
  return undefined;
}

/** The built-in kinds' declared types, made once each (the release's schemas never change). */
const builtinTypes = new Map<string, JSONSchemaProps | undefined>();

/**
 * A custom resource's schema as apiextensions-apiserver's builder publishes it in v3: the CRD's
 * schema, metadata an ObjectMeta reference, apiVersion and kind strings, and every embedded
 * resource given apiVersion, kind and metadata likewise.
 */
function crdSchema(root: JSONSchemaProps): OpenApiSchema {
  const embed = (s: JSONSchemaProps): OpenApiSchema => {
    const out: OpenApiSchema = { ...s };
    if (s.properties)
      out.properties = Object.fromEntries(
        Object.entries(s.properties).map(([k, v]) => [k, embed(v)]),
      );
    if (s.items) out.items = embed(s.items);
    if (isObj(s.additionalProperties)) out.additionalProperties = embed(s.additionalProperties);
    if (s['x-kubernetes-embedded-resource'])
      out.properties = {
        ...rec(out.properties),
        apiVersion: STRING,
        kind: STRING,
        metadata: { $ref: OBJECT_META },
      };
    return out;
  };
  const out = embed(root);
  out.properties = { ...rec(out.properties), metadata: { $ref: OBJECT_META } };
  (out.properties as Record<string, unknown>).apiVersion = STRING;
  (out.properties as Record<string, unknown>).kind = STRING;
  return out;
}

/**
 * The declared type of a kind, as the controller's resolver and SchemaDeclType give it; undefined
 * when the kind's schema is not found or not exposed (the kind is then not checked).
 */
export function declTypeOf(gvk: Gvk, types: ResourceType[]): JSONSchemaProps | undefined {
  try {
    const t = types.find(
      (t) =>
        t.info.group === gvk.group && t.info.version === gvk.version && t.info.kind === gvk.kind,
    );
    if (!t?.crd) {
      const key = gvkString(gvk);
      if (!builtinTypes.has(key)) {
        const b = builtinSchema(gvk);
        builtinTypes.set(key, b && declSchema(b.root, b.src, new Set(), true));
      }
      return builtinTypes.get(key);
    }
    if (!t.schema) return undefined;
    const meta = documentOf('api/v1');
    if (!meta) return undefined;
    return declSchema(crdSchema(t.schema.root), meta, new Set(), true);
  } catch (err) {
    if (err instanceof UnresolvedRef) return undefined;
    throw err;
  }
}

// ------------------------------------------------------------------ declared variables

const obj = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({
  type: 'object',
  properties,
});
const list = (items: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', items });
const map = (values: JSONSchemaProps): JSONSchemaProps => ({
  type: 'object',
  additionalProperties: values,
});
const BOOL: JSONSchemaProps = { type: 'boolean' };
const INT: JSONSchemaProps = { type: 'integer' };
const TIMESTAMP: JSONSchemaProps = { type: 'string', format: 'date-time' };
/** A schema of no type: the checker's dyn. */
const DYN: JSONSchemaProps = {};

/** plugincel.BuildRequestType: the `request` variable's type. */
const REQUEST: JSONSchemaProps = (() => {
  const gvk = obj({ group: STRING, version: STRING, kind: STRING });
  const gvr = obj({ group: STRING, version: STRING, resource: STRING });
  return obj({
    kind: gvk,
    resource: gvr,
    subResource: STRING,
    requestKind: gvk,
    requestResource: gvr,
    requestSubResource: STRING,
    name: STRING,
    namespace: STRING,
    operation: STRING,
    userInfo: obj({
      username: STRING,
      uid: STRING,
      groups: list(STRING),
      extra: map(list(STRING)),
    }),
    dryRun: BOOL,
    options: DYN,
  });
})();

/** plugincel.BuildNamespaceType: the `namespaceObject` variable's type. */
const NAMESPACE: JSONSchemaProps = obj({
  metadata: obj({
    name: STRING,
    generateName: STRING,
    namespace: STRING,
    labels: map(STRING),
    annotations: map(STRING),
    UID: STRING,
    creationTimestamp: TIMESTAMP,
    deletionGracePeriodSeconds: INT,
    deletionTimestamp: TIMESTAMP,
    generation: INT,
    resourceVersion: STRING,
    finalizers: list(STRING),
  }),
  spec: obj({ finalizers: list(STRING) }),
  status: obj({
    conditions: list(
      obj({
        status: STRING,
        type: STRING,
        lastTransitionTime: TIMESTAMP,
        message: STRING,
        reason: STRING,
      }),
    ),
    phase: STRING,
  }),
});

/**
 * A variable's field type from its expression's output type (convertCelTypeToDeclType): the
 * scalars as they are; anything else — objects, lists and maps this checker types loosely, an
 * expression that does not check — dyn.
 */
const VARIABLE_TYPES: Record<string, JSONSchemaProps> = {
  bool: BOOL,
  int: INT,
  double: { type: 'number' },
  string: STRING,
  bytes: { type: 'string', format: 'byte' },
  timestamp: TIMESTAMP,
  duration: { type: 'string', format: 'duration' },
};

interface NamedExpression {
  name?: unknown;
  expression?: unknown;
}

// ------------------------------------------------------------------ Check

/** A policy's paramKind as a kind, undefined when it has none or it does not parse. */
function paramsGvk(policy: KubeObject): Gvk | undefined {
  const pk = rec(rec(policy.spec).paramKind);
  if (!Object.keys(pk).length) return undefined;
  const parts = (typeof pk.apiVersion === 'string' ? pk.apiVersion : '').split('/');
  if (parts.length > 2) return undefined;
  const [group, version] = parts.length === 2 ? parts : ['', parts[0]!];
  const kind = typeof pk.kind === 'string' ? pk.kind : '';
  return group || version || kind ? { group: group!, version: version!, kind } : undefined;
}

/**
 * TypeChecker.Check: the warnings for the policy's validations (expression, then
 * messageExpression), in order; none when every expression checks against every kind.
 */
export function checkPolicy(policy: KubeObject, types: ResourceType[]): ExpressionWarning[] {
  const kinds: Array<{ gvk: Gvk; type: JSONSchemaProps }> = [];
  for (const gvk of typesToCheck(policy, types)) {
    const type = declTypeOf(gvk, types);
    if (type) kinds.push({ gvk, type });
  }
  const pg = paramsGvk(policy);
  const params: StaticType = (pg && declTypeOf(pg, types)) ?? 'dyn';
  const spec = rec(policy.spec);
  const variables = (Array.isArray(spec.variables) ? spec.variables : []) as NamedExpression[];

  /** The environment of one kind: its variables compiled in order, each seeing those before. */
  const envs = kinds.map(({ gvk, type }) => {
    const fields: Record<string, JSONSchemaProps> = {};
    const vars = new Map<string, StaticType>([
      ['object', type],
      ['oldObject', type],
      ['request', REQUEST],
      ['namespaceObject', NAMESPACE],
      ['authorizer', 'dyn'],
      ['variables', { type: 'object', properties: fields }],
    ]);
    if (pg) vars.set('params', params);
    for (const v of variables) {
      if (typeof v.name !== 'string') continue;
      const c =
        typeof v.expression === 'string'
          ? checkExpression(v.expression, vars, 'assumed')
          : { type: 'dyn' };
      fields[v.name] = (!c.issues && VARIABLE_TYPES[c.type]) || DYN;
    }
    return { gvk, vars };
  });

  const check = (expression: string): string | undefined => {
    const out: string[] = [];
    for (const { gvk, vars } of envs) {
      const c = checkExpression(expression, vars, 'assumed');
      if (c.issues) out.push(`${gvkString(gvk)}: ${c.issues}\n`);
    }
    return out.length ? out.join('\n') : undefined;
  };

  const warnings: ExpressionWarning[] = [];
  const validations = Array.isArray(spec.validations) ? spec.validations : [];
  validations.forEach((raw, i) => {
    const v = rec(raw);
    const expression = typeof v.expression === 'string' ? v.expression : '';
    const w = check(expression);
    if (w) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if (typeof v.messageExpression !== 'string' || v.messageExpression === '') return;
    const m = check(v.messageExpression);
    if (m) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return warnings;
}
