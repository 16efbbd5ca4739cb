// Generates the name rule of every built-in kind: which check kube-apiserver applies to
// metadata.name (DNS-1123 subdomain, DNS-1123 label, DNS-1035 label, or a path segment as RBAC
// names are). Upstream says it in each kind's validation function —
// `ValidateObjectMeta(&obj.ObjectMeta, namespaced, ValidateDeploymentName, …)` in
// k8s.io/kubernetes pkg/apis/<group>/validation — through a chain of aliases
// (`var ValidateDeploymentName = apimachineryvalidation.NameIsDNSSubdomain`) and small wrappers
// (`func ValidateRBACName(name string, prefix bool) []string { return content.IsPathSegmentName(name) }`),
// sometimes behind a feature gate. This follows those chains in the release's source text to one of
// the apimachinery checks below; a kind whose chain ends elsewhere keeps the default (subdomain) and
// is named in the build's log.
// Run through scripts/generate.mjs.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  downloadModule,
  kubernetesModuleVersion,
  kubernetesRelease,
  stagingModuleVersion,
} from './kubernetes.mjs';
import { featureDefaults } from './apigen-resetfields.mjs';

const ANY = '(no check)';

/** apimachinery's name checks, by the names the chains end at. */
const CHECKS = {
  NameIsDNSSubdomain: 'subdomain',
  NameIsDNSLabel: 'label',
  NameIsDNS1035Label: 'dns1035',
  IsPathSegmentName: 'pathSegment',
  IsValidPathSegmentName: 'pathSegment',
  ValidatePathSegmentName: 'pathSegment',
  // A wrapper whose body is `return nil` checks nothing (CertificateSigningRequest names).
  [ANY]: 'any',
};

function goFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
    .map((f) => readFileSync(join(dir, f), 'utf8'));
}

/** Top-level aliases and one-line wrappers: name → the name it stands for. */
export function aliasesOf(texts) {
  const alias = new Map();
  for (const text of texts) {
    for (const m of text.matchAll(/^(?:var\s+|\t)(\w+)\s*=\s*(?:\w+\.)?(\w+)\s*$/gm)) {
      alias.set(m[1], m[2]);
    }
    const wrapper = /^func (\w+)\(name string, prefix bool\) \[\]string \{\n([\s\S]*?)\n\}/gm;
    for (const m of text.matchAll(wrapper)) {
      if (/^\s*return nil\s*$/.test(m[2])) {
        alias.set(m[1], ANY);
        continue;
      }
      const calls = [...m[2].matchAll(/return (?:\w+\.)?(\w+)\(name/g)].map((c) => c[1]);
      // A wrapper that only picks the prefix form of the same check counts as that check.
      const named = calls.find((c) => CHECKS[c]) ?? (calls.length === 1 ? calls[0] : undefined);
      if (named) alias.set(m[1], named);
    }
  }
  return alias;
}

function resolve(name, alias) {
  for (let i = 0; i < 10 && name; i++) {
    if (CHECKS[name]) return CHECKS[name];
    name = alias.get(name);
  }
  return undefined;
}

/**
 * The kinds one validation package checks names of: [{ kind, fn }], `fn` the name function
 * (a local variable picked under a feature gate resolved with `gateOn`).
 */
export function validatedKinds(text, gateOn) {
  const out = [];
  const funcs = /^func \w+\(([^)]*)\)[^{]*\{\n([\s\S]*?)\n\}/gm;
  for (const f of text.matchAll(funcs)) {
    for (const call of f[2].matchAll(
      /ValidateObjectMeta\(&(\w+)\.ObjectMeta, [^,]+, (?:\w+\.)?(\w+)[,(]/g,
    )) {
      const param = new RegExp(`\\b${call[1]},?[^,)]*?\\*\\w+\\.(\\w+)`).exec(f[1]);
      if (!param) continue;
      let fn = call[2];
      const local = new RegExp(`\\b${fn} := (?:\\w+\\.)?(\\w+)`).exec(f[2]);
      if (local) {
        const gated = new RegExp(
          `Enabled\\(features\\.(\\w+)\\) \\{\\n\\s*${fn} = (?:\\w+\\.)?(\\w+)`,
        ).exec(f[2]);
        fn = gated && gateOn(gated[1]) ? gated[2] : local[1];
      }
      out.push({ kind: param[1], fn });
    }
  }
  return out;
}

export function generate(release = kubernetesRelease()) {
  const k8s = downloadModule('k8s.io/kubernetes', kubernetesModuleVersion(release)).Dir;
  const machinery = downloadModule('k8s.io/apimachinery', stagingModuleVersion(release)).Dir;
  const features = featureDefaults(
    readFileSync(join(k8s, 'pkg', 'features', 'kube_features.go'), 'utf8'),
    release,
  );
  const gateOn = (g) => features.get(g) ?? false;
  const apis = join(k8s, 'pkg', 'apis');
  const groups = readdirSync(apis).filter((d) => existsSync(join(apis, d, 'validation')));
  const alias = aliasesOf([
    ...groups.flatMap((g) => goFiles(join(apis, g, 'validation'))),
    ...goFiles(join(machinery, 'pkg', 'api', 'validation')),
    ...goFiles(join(machinery, 'pkg', 'api', 'validation', 'path')),
  ]);
  const rules = {};
  const unresolved = [];
  for (const dir of groups) {
    const register = readFileSync(join(apis, dir, 'register.go'), 'utf8');
    const group = /const GroupName = "([^"]*)"/.exec(register)?.[1];
    if (group === undefined) continue;
    for (const text of goFiles(join(apis, dir, 'validation'))) {
      for (const { kind, fn } of validatedKinds(text, gateOn)) {
        const rule = resolve(fn, alias);
        const key = `${group}/${kind}`;
        if (rule) rules[key] ??= rule;
        else unresolved.push(`${key} (${fn})`);
      }
    }
  }
  if (unresolved.length) {
    console.error(
      `[apigen] name rules other than apimachinery's name checks (kept as subdomain): ${[...new Set(unresolved)].join(', ')}`,
    );
  }
  return { release, nameRules: rules };
}
