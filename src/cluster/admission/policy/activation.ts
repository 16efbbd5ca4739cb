/**
 * What an admission policy's CEL expressions see (k8s.io/apiserver admission/plugin/cel
 * activation.go, condition.go and composition.go): `object` and `oldObject` at the version the
 * policy matched, `request` (CreateAdmissionRequest: the AdmissionRequest without its objects),
 * `params`, `namespaceObject` (the request's Namespace, reduced to the fields CreateNamespaceObject
 * keeps) and `variables`, each evaluated the first time an expression reads it and kept for the
 * rest of the request, as composition.go's lazy map does; `authorizer` (cel/celauthz.ts) checks
 * as the request's user, and allows everything, as the fake authorizes.
 */
import type { CelInput, CelMap } from '@bufbuild/cel';
import { celMap } from '@bufbuild/cel';
import { toCel } from '../../apiextensions/celvalidation';
import { CompilationError, compile, evaluate } from '../celexpression';
import { isObject } from '../../apimachinery/patch';
import type { KubeObject } from '../../apimachinery/types';

/** cel.CreateNamespaceObject: the Namespace with only these metadata fields, spec and status. */
export function namespaceObject(ns: KubeObject): Record<string, unknown> {
  const md = ns.metadata as Record<string, unknown>;
  const keep = [
    'name',
    'generateName',
    'namespace',
    'uid',
    'resourceVersion',
    'generation',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'labels',
    'annotations',
    'finalizers',
  ];
  const metadata: Record<string, unknown> = {};
  for (const k of keep) if (md[k] !== undefined) metadata[k] = md[k];
  const out: Record<string, unknown> = { metadata };
  if (isObject(ns.spec)) out.spec = ns.spec;
  if (isObject(ns.status)) out.status = ns.status;
  return out;
}

export interface NamedExpression {
  name: string;
  expression: string;
}

/**
 * `variables`: each variable compiled once and evaluated on first read, with every binding (and
 * the variables before it) in scope; a variable that fails makes the read fail with
 * composition.go's `composited variable "v" fails to evaluate: …`.
 */
class LazyVariables implements ReadonlyMap<string, CelInput> {
  private readonly cache = new Map<string, CelInput>();
  private readonly byName: Map<string, NamedExpression>;

  constructor(
    variables: NamedExpression[],
    private readonly bindings: Record<string, unknown>,
  ) {
    this.byName = new Map(variables.map((v) => [v.name, v]));
  }

  get(name: string): CelInput | undefined {
    if (this.cache.has(name)) {
      const known = this.cache.get(name);
      if (known instanceof Error) throw known;
      return known;
    }
    const v = this.byName.get(name);
    if (!v) return undefined;
    const c = compile(v.expression);
    // A variable that fails fails the read: thrown, cel-es makes it the expression's error.
    let value: unknown;
    if (c instanceof CompilationError)
      value = new Error(`composited variable "${name}" fails to compile: ${c.message}`);
    else {
      const out = evaluate(c, this.bindings);
      value =
        out instanceof Error
          ? new Error(`composited variable "${name}" fails to evaluate: ${out.message}`)
          : out;
    }
    this.cache.set(name, value as CelInput);
    if (value instanceof Error) throw value;
    return value as CelInput;
  }
  has(name: string): boolean {
    return this.byName.has(name);
  }
  get size(): number {
    return this.byName.size;
  }
  *keys(): MapIterator<string> {
    yield* this.byName.keys();
  }
  *values(): MapIterator<CelInput> {
    for (const k of this.byName.keys()) yield this.get(k)!;
  }
  *entries(): MapIterator<[string, CelInput]> {
    for (const k of this.byName.keys()) yield [k, this.get(k)!];
  }
  [Symbol.iterator](): MapIterator<[string, CelInput]> {
    return this.entries();
  }
  forEach(cb: (value: CelInput, key: string, map: ReadonlyMap<string, CelInput>) => void): void {
    for (const [k, v] of this.entries()) cb(v, k, this);
  }
}

export interface ActivationInput {
  /** The `authorizer` variable (celauthz.ts authorizerFor). */
  authorizer: CelMap;
  object: unknown;
  oldObject: unknown;
  request: Record<string, unknown>;
  params: unknown;
  namespaceObject: unknown;
  variables: NamedExpression[];
}

/** The bindings of one evaluation (newActivation), `variables` shared by every expression. */
export function activation(input: ActivationInput): Record<string, unknown> {
  const bindings: Record<string, unknown> = {
    object: toCel(input.object, undefined),
    oldObject: toCel(input.oldObject, undefined),
    request: toCel(input.request, undefined),
    params: toCel(input.params, undefined),
    namespaceObject: toCel(input.namespaceObject, undefined),
    authorizer: input.authorizer,
  };
  bindings.variables = celMap(new LazyVariables(input.variables, bindings));
  return bindings;
}
