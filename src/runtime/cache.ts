/**
 * controller-runtime's pkg/cache: one informer per type, started on first use, and a reader that
 * serves Get/List from the informers' stores. Reads return deep copies (as the default cache does)
 * so a reconciler mutating what it read cannot corrupt the cache; the objects are plain JSON, so the
 * copy is a JSON round trip (faster than structuredClone for these shapes). Field indexers are supported
 * (IndexField), and `metadata.namespace`/`metadata.name` field selectors always work.
 */
import type { KubeObject, ListOptions, ObjectKey, TypeRef } from '../cluster/apimachinery/types';
import { splitApiVersion } from '../cluster/apimachinery/types';
import { copyOfDecoded } from '../cluster/apimachinery/clone';
import { newNotFound } from '../cluster/apimachinery/errors';
import {
  matchesLabels,
  parseLabelSelector,
  parseFieldSelector,
} from '../cluster/apimachinery/selector';
import type { Clock } from '../util/clock';
import { resourceName, typeKey, type ApiServer } from './apiserver';
import { Informer, type IndexFunc } from './informer';
import { requestKey } from './reconcile';
import { TypeMap } from './typemap';

export interface CacheOptions {
  api: ApiServer;
  clock: Clock;
  /** Delay of watch events reaching the cache (clock ms); 0 = as soon as delivered. */
  propagationDelayMs?: number;
}

export class Cache {
  private readonly informers = new TypeMap<Informer>();

  constructor(private readonly opts: CacheOptions) {}

  /** The informer for a type, created and started (listed) on first use. */
  getInformer(type: TypeRef): Informer {
    let inf = this.informers.get(type);
    if (!inf) {
      inf = new Informer({
        api: this.opts.api,
        type,
        clock: this.opts.clock,
        propagationDelayMs: this.opts.propagationDelayMs,
      });
      this.informers.set(type, inf);
      inf.start();
    }
    return inf;
  }

  informerTypes(): TypeRef[] {
    return [...this.informers.values()].map((i) => i.type);
  }

  /** Get from the cache; throws the same 404 the API server would. */
  get(type: TypeRef, key: ObjectKey): KubeObject {
    const obj = this.getInformer(type).getByKey(requestKey(key));
    if (!obj) {
      throw newNotFound(
        {
          group: splitApiVersion(type.apiVersion).group,
          resource: resourceName(this.opts.api, type),
        },
        key.name,
      );
    }
    return copyOfDecoded(obj);
  }

  /**
   * undefined when the type's informer has synced (always so in-process), else a promise that
   * settles when it has (rejects if it stops first). Starts the informer on first use.
   */
  waitForSync(type: TypeRef): Promise<void> | undefined {
    const inf = this.getInformer(type);
    return inf.hasSynced() ? undefined : inf.waitForSync();
  }

  /** Resolves when every started informer has synced (mgr.GetCache().WaitForCacheSync). */
  async waitForCacheSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  /**
   * The stored object without a copy when the type already has a synced informer; null when it
   * has none (so a caller can ask the server instead of starting an informer as a side effect).
   */
  peekIfWatched(type: TypeRef, key: ObjectKey): KubeObject | undefined | null {
    const inf = this.informers.get(type);
    if (!inf || !inf.hasSynced()) return null;
    return inf.getByKey(requestKey(key));
  }

  /** Whether the cache holds the object (no copy, no error). */
  has(type: TypeRef, key: ObjectKey): boolean {
    return this.getInformer(type).getByKey(requestKey(key)) !== undefined;
  }

  /** Peek without copying (internal: diffs and findings). */
  peek(type: TypeRef, key: ObjectKey): KubeObject | undefined {
    return this.getInformer(type).getByKey(requestKey(key));
  }

  list(type: TypeRef, opts: ListOptions = {}): { items: KubeObject[] } {
    const inf = this.getInformer(type);
    const labels = parseLabelSelector(opts.labelSelector);
    const fields = parseFieldSelector(opts.fieldSelector);
    const items: KubeObject[] = [];
    let candidates = inf.list();
    // An exact field selector on an indexed field uses the index (IndexField).
    for (const f of fields) {
      const name = `field:${f.field}`;
      if (f.op === '=' && this.hasIndex(inf, name)) candidates = inf.byIndex(name, f.value);
    }
    for (const obj of candidates) {
      if (opts.namespace && obj.metadata.namespace !== opts.namespace) continue;
      if (labels.length && !matchesLabels(labels, obj.metadata.labels)) continue;
      if (!fields.every((f) => this.matchField(obj, f.field, f.op, f.value))) continue;
      items.push(copyOfDecoded(obj));
    }
    items.sort((a, b) => objKey(a).localeCompare(objKey(b)));
    return { items };
  }

  /** mgr.GetFieldIndexer().IndexField: makes `field=value` selectors on `field` work from the cache. */
  indexField(type: TypeRef, field: string, extract: IndexFunc): void {
    this.getInformer(type).addIndexer(`field:${field}`, extract);
    this.customFields.set(`${typeKey(type)}|${field}`, extract);
  }

  private readonly customFields = new Map<string, IndexFunc>();

  private hasIndex(inf: Informer, name: string): boolean {
    const field = name.slice('field:'.length);
    return this.customFields.has(`${typeKey(inf.type)}|${field}`);
  }

  private matchField(obj: KubeObject, field: string, op: string, value: string): boolean {
    const custom = this.customFields.get(`${obj.apiVersion}/${obj.kind}|${field}`);
    if (custom) {
      const has = custom(obj).includes(value);
      return op === '!=' ? !has : has;
    }
    return matchField(obj, field, op, value);
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
    this.informers.clear();
  }
}

function objKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

function matchField(obj: KubeObject, field: string, op: string, value: string): boolean {
  let actual: unknown;
  if (field === 'metadata.name') actual = obj.metadata.name;
  else if (field === 'metadata.namespace') actual = obj.metadata.namespace ?? '';
  else {
    // Dotted path into the object (spec.nodeName, status.phase ...).
    actual = field
      .split('.')
      .reduce<unknown>(
        (o, p) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[p] : undefined),
        obj,
      );
  }
  const s = actual === undefined || actual === null ? '' : String(actual);
  return op === '!=' ? s !== value : s === value;
}
