// Generates the served API surface of the pinned Kubernetes release from the documents the
// release publishes in k8s.io/kubernetes: api/discovery/*.json (the legacy and aggregated
// discovery documents its apiserver serves) and api/openapi-spec (swagger.json and v3/*.json),
// with the enums those documents leave out read from the generated OpenAPI definitions of
// k8s.io/kubernetes and k8s.io/apiextensions-apiserver (see generatedEnums).
// Output, never committed (/generated/ is gitignored) and never edited by hand:
//   generated/discovery/api.json   groups, versions and resources as discovery lists them, and
//                                  the release's /version
//   generated/openapi/documents.br the OpenAPI v2 document, trimmed to the served group-versions,
//                                  and one v3 document per served path (api/v1, apis/apps/v1…),
//                                  one after the other, brotli-compressed as one: the documents
//                                  repeat each other's schemas (8.7 MB of JSON, 0.2 MB compressed)
//                                  and the v2 document as the gnostic protobuf kube-apiserver
//                                  serves to kubectl (tools/openapiv2pb makes it)
//   generated/openapi/index.json   where each document starts and how long it is, in bytes
//   generated/openapi/v2fields.json the field numbers of gnostic's OpenAPIv2.proto, by message
//                                  and field name: the server encodes what CRDs add with them
// scripts/build.mjs and scripts/test.mjs call ensureDiscovery(); it regenerates only when the
// stamp (release + this script's text) differs.
// Only Node built-ins here: the build runs it before anything else.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openapiV2Fields, openapiV2Protobuf, openapiv2pbSource } from './apigen-openapiv2pb.mjs';
import {
  downloadModule,
  kubernetesModuleVersion,
  kubernetesRelease,
  root,
  stagingModuleVersion,
} from './kubernetes.mjs';

const discoveryOut = join(root, 'generated', 'discovery');
const openapiOut = join(root, 'generated', 'openapi');
const stampFile = join(discoveryOut, 'STAMP');

/**
 * The documents in k8s.io/kubernetes are made with every API enabled (hack/update-openapi-spec.sh
 * runs the apiserver with --runtime-config=api/all=true). A default kube-apiserver serves only
 * the stable versions: pkg/controlplane/instance.go enables the GA group-versions and disables
 * every alpha and beta one, and its tests (TestNoAlphaVersionsEnabledByDefault,
 * TestNoBetaVersionsEnabledByDefault) keep it so. We serve what a default apiserver serves.
 */
const servedByDefault = (version) => /^v\d+$/.test(version);

/**
 * The documents are made with --enable-logs-handler, which a default kube-apiserver of the
 * release has off (pkg/controlplane/apiserver/options: EnableLogsHandler false): no /logs paths.
 */
const servedPath = (path) => !/^\/?logs(\/|$)/.test(path);

/** The release, and the code that makes the outputs: this script and the protobuf converter. */
function stamp() {
  const hash = createHash('sha256');
  for (const f of [
    fileURLToPath(import.meta.url),
    fileURLToPath(new URL('./apigen-openapiv2pb.mjs', import.meta.url)),
    openapiv2pbSource,
  ])
    hash.update(readFileSync(f));
  return `${kubernetesRelease()} ${hash.digest('hex').slice(0, 16)}\n`;
}

/** Whether the generated data is there and made for this release by this generator. */
export function discoveryIsCurrent() {
  const outputs = [
    join(discoveryOut, 'api.json'),
    join(openapiOut, 'documents.br'),
    join(openapiOut, 'index.json'),
    join(openapiOut, 'v2fields.json'),
  ];
  return (
    outputs.every((f) => existsSync(f)) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8') === stamp()
  );
}

/** Generates the data unless it is current; answers whether it generated. */
export function ensureDiscovery() {
  if (discoveryIsCurrent()) return false;
  try {
    generateDiscovery();
  } catch (err) {
    throw new Error(
      `cannot generate the served API of Kubernetes ${kubernetesRelease()}: it is read from the ` +
        `k8s.io/kubernetes module with \`go mod download\` (Go and the module proxy, or a module ` +
        `cache that has it, are needed once): ${err.message}`,
      { cause: err },
    );
  }
  return true;
}

const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));

export function generateDiscovery() {
  const started = performance.now();
  const release = kubernetesRelease();
  const mod = downloadModule('k8s.io/kubernetes', kubernetesModuleVersion(release));
  const api = join(mod.Dir, 'api');
  const disc = (name) => readJson(join(api, 'discovery', `${name}.json`));

  // Groups in the order the release's /apis lists them, the core group first as /api has it.
  const groups = [];
  const core = disc('api');
  // Each version keeps its APIResourceList as served (the core one has no apiVersion field).
  const coreVersions = core.versions.filter(servedByDefault);
  groups.push({
    name: '',
    preferredVersion: coreVersions[0],
    versions: coreVersions.map((version) => ({ version, list: disc(`api__${version}`) })),
  });
  for (const g of disc('apis').groups) {
    const versions = g.versions
      .map((v) => v.version)
      .filter(servedByDefault)
      .map((version) => ({ version, list: disc(`apis__${g.name}__${version}`) }));
    if (!versions.length) continue;
    const preferred = g.preferredVersion.version;
    groups.push({
      name: g.name,
      preferredVersion: versions.some((v) => v.version === preferred)
        ? preferred
        : versions[0].version,
      versions,
    });
  }
  const servedPaths = new Set(
    groups.flatMap((g) =>
      g.versions.map((v) => (g.name ? `apis/${g.name}/${v.version}` : `api/${v.version}`)),
    ),
  );

  // The aggregated document of /apis as the release serves it, its items trimmed likewise.
  const aggregated = disc('aggregated_v2');
  aggregated.items = aggregated.items
    .map((it) => ({ ...it, versions: it.versions.filter((v) => servedByDefault(v.version)) }))
    .filter((it) => it.versions.length);

  const data = {
    release,
    version: versionInfo(release, mod),
    groups,
    aggregated,
  };

  rmSync(discoveryOut, { recursive: true, force: true });
  rmSync(openapiOut, { recursive: true, force: true });
  mkdirSync(discoveryOut, { recursive: true });
  mkdirSync(openapiOut, { recursive: true });
  writeFileSync(join(discoveryOut, 'api.json'), JSON.stringify(data));

  const documents = [];
  const index = { v2: [0, 0], v2pb: [0, 0], v3: {} };
  let offset = 0;
  const add = (content) => {
    const bytes = Buffer.from(content);
    documents.push(bytes);
    offset += bytes.length;
    return [offset - bytes.length, bytes.length];
  };
  // kube-apiserver's definitions, and apiextensions-apiserver's (CustomResourceDefinition's).
  const generatedOpenapi = (dir) =>
    readFileSync(join(dir, 'pkg', 'generated', 'openapi', 'zz_generated.openapi.go'), 'utf8');
  const apiextensions = downloadModule(
    'k8s.io/apiextensions-apiserver',
    stagingModuleVersion(release),
  );
  const enums = new Map([
    ...generatedEnums(generatedOpenapi(mod.Dir)),
    ...generatedEnums(generatedOpenapi(apiextensions.Dir), 'k8s.io/apiextensions-apiserver/'),
  ]);
  const v2 = trimV2(readJson(join(api, 'openapi-spec', 'swagger.json')), servedPaths);
  restoreEnums(v2.definitions, enums);
  dropCbor(v2.paths);
  const v2Text = JSON.stringify(v2);
  index.v2 = add(v2Text);
  // The protobuf repeats the JSON's strings: compressed with it, it costs little more.
  index.v2pb = add(openapiV2Protobuf(v2Text, release));

  // v3: one document per path. A group-version not served is left out, and so is a group's own
  // document (apis/<group>) when none of its versions is served.
  const servedGroups = new Set(groups.map((g) => g.name).filter(Boolean));
  let v3 = 0;
  for (const f of readdirSync(join(api, 'openapi-spec', 'v3'))) {
    const m = /^(.*)_openapi\.json$/.exec(f);
    if (!m) continue;
    const path = m[1].split('__').join('/');
    const parts = path.split('/');
    if (parts[0] === 'apis' && parts.length === 3 && !servedPaths.has(path)) continue;
    if (parts[0] === 'apis' && parts.length === 2 && !servedGroups.has(parts[1])) continue;
    if (parts[0] === 'api' && parts.length === 2 && !servedPaths.has(path)) continue;
    if (!servedPath(path)) continue;
    const doc = readJson(join(api, 'openapi-spec', 'v3', f));
    if (doc.components?.schemas) restoreEnums(doc.components.schemas, enums);
    dropCbor(doc);
    index.v3[path] = add(JSON.stringify(doc));
    v3++;
  }
  const all = Buffer.concat(documents);
  writeFileSync(
    join(openapiOut, 'documents.br'),
    brotliCompressSync(all, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: 9,
        // A window as large as brotli allows, so a schema repeated documents apart is a reference.
        [zlib.BROTLI_PARAM_LGWIN]: 24,
        [zlib.BROTLI_PARAM_SIZE_HINT]: all.length,
      },
    }),
  );
  writeFileSync(join(openapiOut, 'index.json'), JSON.stringify(index));
  writeFileSync(join(openapiOut, 'v2fields.json'), JSON.stringify(openapiV2Fields(release)));
  writeFileSync(stampFile, stamp());
  const resources = groups.reduce(
    (n, g) => n + g.versions.reduce((m, v) => m + v.list.resources.length, 0),
    0,
  );
  console.log(
    `generated the API of Kubernetes ${release}: ${servedPaths.size} group-versions, ` +
      `${resources} resources and subresources, ${v3} OpenAPI v3 documents ` +
      `in ${Math.round(performance.now() - started)} ms`,
  );
}

/**
 * /version of the release. kube-apiserver reports its build (gitVersion, the Go toolchain, the
 * platform it runs on); a build of the release's tag reports the tag, the tag's commit time as
 * buildDate, and the Go it was built with. Its gitCommit is not in the module: left out.
 */
function versionInfo(release, mod) {
  const [major, minor] = release.split('.');
  const info = mod.Info && existsSync(mod.Info) ? readJson(mod.Info) : {};
  // The release is built with the Go of its .go-version (the build image's); go.mod's otherwise.
  const goVersionFile = join(mod.Dir, '.go-version');
  const goMod = readFileSync(mod.GoMod, 'utf8');
  const go = existsSync(goVersionFile)
    ? `go${readFileSync(goVersionFile, 'utf8').trim()}`
    : `go${/^go\s+(\S+)/m.exec(goMod)?.[1]}`;
  return {
    major,
    minor,
    emulationMajor: major,
    emulationMinor: minor,
    minCompatibilityMajor: major,
    minCompatibilityMinor: String(Number(minor) - 1),
    gitVersion: `v${release}`,
    gitTreeState: 'clean',
    buildDate: info.Time ?? '',
    goVersion: go,
    compiler: 'gc',
  };
}

/**
 * The documents are made with OpenAPIEnums=false, a feature a default kube-apiserver of the
 * release has on: its served schemas carry each enum type's `enum` and a description ending in
 * "Possible enum values: …". Both are in the release's generated OpenAPI definitions
 * (pkg/generated/openapi/zz_generated.openapi.go), which this reads back: per definition, per
 * schema path ("properties/type", "properties/usages/items"), the enum and the full description.
 * The file is gofmt'd Go; a schema's path follows its nesting, which indentation shows.
 * `localPrefix` is the module's path when its own types' functions are named without it
 * (apiextensions-apiserver's `schema_pkg_apis_apiextensions_v1_…`).
 */
function generatedEnums(goSource, localPrefix = '') {
  const byDefinition = new Map();
  let current;
  let stack = [];
  for (const line of goSource.split('\n')) {
    const fn =
      /^func schema_(\w+)\(ref common\.ReferenceCallback\) common\.OpenAPIDefinition \{$/.exec(
        line,
      );
    if (fn) {
      current = new Map();
      byDefinition.set(normalizedName(`${localPrefix}${fn[1]}`), current);
      stack = [];
      continue;
    }
    if (!current) continue;
    const indent = /^\t*/.exec(line)[0].length;
    const text = line.trim();
    while (stack.length && indent < stack.at(-1).indent) stack.pop();
    if (stack.length && indent === stack.at(-1).indent && text.startsWith('}')) {
      stack.pop();
      continue;
    }
    const path = () => stack.map((e) => e.name).join('/');
    const prop = /^"([^"]+)": \{$/.exec(text);
    if (prop) stack.push({ indent, name: `properties/${prop[1]}` });
    else if (text === 'Items: &spec.SchemaOrArray{') stack.push({ indent, name: 'items' });
    else if (text === 'AdditionalProperties: &spec.SchemaOrBool{')
      stack.push({ indent, name: 'additionalProperties' });
    const description = /^Description:\s+("(?:[^"\\]|\\.)*"),$/.exec(text);
    const enumList = /^Enum:\s+\[\]interface\{\}\{(.*)\},?$/.exec(text);
    if (!description && !enumList) continue;
    const entry = current.get(path()) ?? {};
    try {
      if (description) entry.description = JSON.parse(description[1]);
      if (enumList) entry.enum = JSON.parse(`[${enumList[1]}]`);
    } catch {
      continue; // a Go literal JSON cannot read: left as the documents have it
    }
    current.set(path(), entry);
  }
  return byDefinition;
}

/** A definition's name and its Go function's, alike: io.k8s.api.core.v1.Pod ~ k8sio_api_core_v1_Pod. */
function normalizedName(name) {
  const parts = name.split('.');
  const goPath = parts[0] === 'io' && parts[1] === 'k8s' ? ['k8sio', ...parts.slice(2)] : parts;
  return goPath
    .join('')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase();
}

/** Puts back the enums (and their descriptions) into a map of definitions, in place. */
function restoreEnums(definitions, enums) {
  for (const [name, schema] of Object.entries(definitions)) {
    const paths = enums.get(normalizedName(name));
    if (!paths) continue;
    for (const [path, { enum: values, description }] of paths) {
      if (!values) continue;
      let node = schema;
      for (const step of path ? path.split('/') : []) node = node?.[step];
      if (!node || typeof node !== 'object') continue;
      node.enum = values;
      const owner = path.endsWith('/items') ? undefined : node;
      if (owner && description && owner.description && description.startsWith(owner.description))
        owner.description = description;
    }
  }
}

const CBOR_TYPES = ['application/cbor', 'application/cbor-seq', 'application/apply-patch+cbor'];

/**
 * The documents are made with every alpha feature on, CBORServingAndStorage among them, so their
 * operations also take and answer `application/cbor`, `application/cbor-seq` and
 * `application/apply-patch+cbor` (v3 in `content`, v2 in `consumes` and `produces`); a default
 * kube-apiserver of the release has the gate off and lists none of them. Removed in place.
 */
function dropCbor(node) {
  if (Array.isArray(node)) return node.forEach(dropCbor);
  if (!node || typeof node !== 'object') return;
  if (node.content && typeof node.content === 'object') {
    for (const type of CBOR_TYPES) delete node.content[type];
  }
  for (const list of ['consumes', 'produces']) {
    if (Array.isArray(node[list])) node[list] = node[list].filter((t) => !CBOR_TYPES.includes(t));
  }
  for (const v of Object.values(node)) dropCbor(v);
}

/**
 * The v2 document has every group-version's paths in one file: keep the paths of served
 * group-versions (and the unversioned ones: /version, /api/, /apis/, /logs/…), then the
 * definitions and shared parameters those paths reach through $ref, so an unserved alpha kind is
 * not explained (nor the /logs paths' `logpath` parameter listed).
 */
function trimV2(doc, servedPaths) {
  const keepPath = (p) => {
    const parts = p.split('/').filter(Boolean);
    if (parts[0] === 'api' && parts.length >= 2) return servedPaths.has(`api/${parts[1]}`);
    if (parts[0] === 'apis' && parts.length >= 3)
      return servedPaths.has(`apis/${parts[1]}/${parts[2]}`);
    if (parts[0] === 'apis' && parts.length === 2)
      return [...servedPaths].some((s) => s.startsWith(`apis/${parts[1]}/`));
    return servedPath(p);
  };
  const paths = Object.fromEntries(Object.entries(doc.paths).filter(([p]) => keepPath(p)));
  const defs = {};
  const params = new Set();
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/parameters/'))
      params.add(ref.slice('#/parameters/'.length));
    if (typeof ref === 'string' && ref.startsWith('#/definitions/')) {
      const name = ref.slice('#/definitions/'.length);
      if (!(name in defs) && doc.definitions[name]) {
        defs[name] = doc.definitions[name];
        visit(defs[name]);
      }
    }
    for (const v of Object.values(node)) visit(v);
  };
  visit(paths);
  visit(doc.parameters);
  const definitions = Object.fromEntries(
    Object.keys(doc.definitions)
      .filter((n) => n in defs)
      .map((n) => [n, doc.definitions[n]]),
  );
  const parameters = Object.fromEntries(
    Object.entries(doc.parameters ?? {}).filter(([n]) => params.has(n)),
  );
  return { ...doc, paths, definitions, parameters };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--force')) generateDiscovery();
  else if (!ensureDiscovery()) console.log('the generated API is current');
}
