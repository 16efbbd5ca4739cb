/**
 * What must differ between two clusters and nothing else: uids, timestamps, resourceVersion values
 * (replaced by their rank among the values one side answered in one scenario, so their order is
 * still compared), generated names, certificate data, continue tokens and the Audit-Id value.
 *
 * A list's resourceVersion is the store's revision when it was read, which every write to the
 * cluster moves, those no scenario sees among them: the reference's kube-controller-manager
 * renews its leader lease every two seconds and kube-apiserver its identity lease. So it is
 * compared by what it promises, how many of the objects' versions the scenario saw it is at or
 * after (`<list-rv:n>`), and it takes no rank from the objects' versions. A watch BOOKMARK's
 * resourceVersion is such a revision too.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
/** A timestamp inside longer text (kubectl's YAML, an event's message). */
const TIME_IN_TEXT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;
/**
 * PEM text, a bundle of blocks as one: which certificates a bundle holds is each cluster's own (the
 * reference's kube-controller-manager publishes the apiserver's self-signed chain, leaf and CA, as
 * its root CA; the fake its CA).
 */
const PEM = /(?:-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----\n?)+/g;
/** Fields that hold certificate data as base64 rather than PEM text. */
const CERT_KEYS = new Set(['caBundle', 'certificate-authority-data', 'certificate', 'ca.crt']);
/** Fields that hold a token each cluster signs with its own key (a token Secret's, a TokenRequest's). */
const TOKEN_KEYS = new Set(['token']);
/** Values an allocator picks at random within a range: which one is not part of the behaviour. */
const ALLOCATED_KEYS = new Set([
  'nodePort',
  'clusterIP',
  'clusterIPs',
  'containerID',
  'healthCheckNodePort',
]);
/** The same values in YAML text (a body asked for as application/yaml). */
const ALLOCATED_IN_YAML =
  /^(\s*(?:- )?(?:nodePort|clusterIP|healthCheckNodePort|containerID): )(?!None$|""$)(.+)$/gm;
const ALLOCATED_LIST_IN_YAML = /^(\s*clusterIPs:\n)((?:\s*- .+\n)+)/gm;
/** The alphabet of the 5 characters apimachinery's SimpleNameGenerator appends to a generateName. */
const GENERATED_SUFFIX = '[bcdfghjklmnpqrstvwxz2456789]{5}';
/** Resource versions quoted in messages (410 Gone, 504 too large, conflicts). */
/** The watch cache's oldest version in a 410's message: each store's own. */
const OLDEST_IN_TEXT = /(too old resource version: \S+ \()(\d+)(\))/g;
const RV_IN_TEXT =
  /((?:resource ?version(?: in (?:the precondition|record))?|current|resourceVersion)[:=]? ?"?\(?)(\d+)/gi;

/** The values one side answered in one scenario, collected first so that ranks cover them all. */
export class Vocabulary {
  private readonly rvs = new Set<string>();
  /** Generated name → "generateName" + "<n>", n counting the names of one prefix in order of appearance. */
  private readonly generated = new Map<string, string>();
  private readonly perPrefix = new Map<string, number>();
  private readonly prefixes = new Set<string>();
  private rank: Map<string, number> | undefined;

  /** `server` is this side's address (https://host:port): each cluster names its own. */
  constructor(private readonly server = '') {}

  collect(value: unknown): void {
    this.rank = undefined;
    walk(value, (key, v, parent, ofList) => {
      if (key === 'resourceVersion' && typeof v === 'string' && /^\d+$/.test(v) && !ofList)
        this.rvs.add(v);
      if (key === 'generateName' && typeof v === 'string' && v !== '') {
        this.prefixes.add(v);
        if (parent && typeof parent.name === 'string') this.nameGenerated(parent.name, v);
      }
    });
  }

  nameGenerated(name: string, prefix: string): void {
    if (!name.startsWith(prefix) || name === prefix || this.generated.has(name)) return;
    const n = (this.perPrefix.get(prefix) ?? 0) + 1;
    this.perPrefix.set(prefix, n);
    this.generated.set(name, `${prefix}<generated-${n}>`);
  }

  rvToken(rv: string): string {
    if (!this.rank) {
      const sorted = [...this.rvs].sort((a, b) =>
        BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0,
      );
      this.rank = new Map(sorted.map((v, i) => [v, i + 1]));
    }
    const r = this.rank.get(rv);
    return r === undefined ? '<rv:unseen>' : `<rv:${r}>`;
  }

  /** A list's resourceVersion: how many of the objects' versions it is at or after. */
  listRvToken(rv: string): string {
    let n = 0;
    for (const v of this.rvs) if (BigInt(v) <= BigInt(rv)) n++;
    return `<list-rv:${n}>`;
  }

  text(s: string): string {
    let out = s.replace(PEM, '<pem>').replace(UUID, '<uid>');
    if (TIME.test(out)) return '<time>';
    out = out.replace(TIME_IN_TEXT, '<time>');
    if (this.server) out = out.split(this.server.replace(/^https:\/\//, '')).join('<server>');
    // A name generated for an object that was then refused appears only in the error's text.
    for (const prefix of this.prefixes) {
      const re = new RegExp(
        `${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${GENERATED_SUFFIX}\\b`,
        'g',
      );
      for (const m of out.match(re) ?? []) this.nameGenerated(m, prefix);
    }
    // Longest first: a generated name may be a prefix of another one.
    for (const [name, token] of [...this.generated].sort((a, b) => b[0].length - a[0].length)) {
      if (out.includes(name)) out = out.split(name).join(token);
    }
    out = out.replace(OLDEST_IN_TEXT, '$1<oldest>$3');
    if (out.includes('\n'))
      out = out
        .replace(ALLOCATED_IN_YAML, '$1<allocated>')
        .replace(ALLOCATED_LIST_IN_YAML, (_m, head: string, items: string) =>
          head.concat(items.replace(/- .+/g, '- <allocated>')),
        );
    return out.replace(RV_IN_TEXT, (_m, pre: string, rv: string) =>
      this.rvs.has(rv) ? `${pre}${this.rvToken(rv)}` : `${pre}<rv>`,
    );
  }
}

/** `ofList`: the value is in a list's own metadata (`{metadata, items: [...]}`, a Table's). */
type Visit = (
  key: string,
  value: unknown,
  parent: Record<string, unknown> | undefined,
  ofList: boolean,
) => void;

function walk(
  value: unknown,
  visit: Visit,
  key = '',
  parent?: Record<string, unknown>,
  ofList = false,
): void {
  visit(key, value, parent, ofList);
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit, '', undefined));
  else if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(obj)) walk(v, visit, k, obj, ofList || listLike(obj, k));
  }
}

/**
 * Whether `obj[k]` holds a store revision rather than an object's version: a list's metadata, or
 * a watch BOOKMARK's object, whose resourceVersion is where the watch cache has got to (the
 * reference's moves with lease renewals, as a list's does).
 */
function listLike(obj: Record<string, unknown>, k: string): boolean {
  return (k === 'metadata' && isList(obj)) || (k === 'object' && obj.type === 'BOOKMARK');
}

/** A list, or a Table of one (its rows): its metadata is the list's. */
function isList(obj: Record<string, unknown>): boolean {
  return (
    (Array.isArray(obj.items) || Array.isArray(obj.rows)) &&
    !!obj.metadata &&
    typeof obj.metadata === 'object'
  );
}

/**
 * managedFields in an order that does not depend on time: the apiserver lists entries by
 * operation, then time to the second, then manager; times are each cluster's own, so two writers
 * a second apart on one side and in the same second on the other would swap places.
 */
function byManager(entries: unknown[]): unknown[] {
  const key = (e: unknown): string => {
    const m = (e ?? {}) as Record<string, unknown>;
    return JSON.stringify([m.operation, m.manager, m.apiVersion, m.subresource ?? '']);
  };
  return [...entries].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** A copy of `value` with what must differ replaced by stable tokens. */
export function normalise(value: unknown, vocab: Vocabulary, key = '', ofList = false): unknown {
  if (typeof value === 'string') {
    if (key === 'resourceVersion' && /^\d+$/.test(value))
      return ofList ? vocab.listRvToken(value) : vocab.rvToken(value);
    if (key === 'continue' && value !== '') return '<continue>';
    if (CERT_KEYS.has(key) && value !== '') return '<certificate>';
    if (TOKEN_KEYS.has(key) && value !== '') return '<token>';
    if (ALLOCATED_KEYS.has(key) && value !== 'None' && value !== '') return '<allocated>';
    return vocab.text(value);
  }
  if (typeof value === 'number' && ALLOCATED_KEYS.has(key)) return '<allocated>';
  if (Array.isArray(value)) {
    const items = value.map((v) => normalise(v, vocab, ALLOCATED_KEYS.has(key) ? key : ''));
    return key === 'managedFields' ? byManager(items) : items;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const obj = ageless(value as Record<string, unknown>);
    for (const [k, v] of Object.entries(obj)) {
      // managedFields keys name list items by their values, uids among them.
      out[vocab.text(k)] = normalise(v, vocab, k, ofList || listLike(obj, k));
    }
    return out;
  }
  return value;
}

/**
 * A Table with its Age cells as `<age>`: an age is the time since a creation timestamp, and
 * timestamps are normalised (a second's tick between two requests changes it).
 */
function ageless(obj: Record<string, unknown>): Record<string, unknown> {
  if (obj.kind !== 'Table' || !Array.isArray(obj.columnDefinitions) || !Array.isArray(obj.rows))
    return obj;
  const at = (obj.columnDefinitions as Array<{ name?: unknown }>).findIndex(
    (c) => c.name === 'Age',
  );
  if (at < 0) return obj;
  const rows = (obj.rows as Array<Record<string, unknown>>).map((row) => {
    if (!Array.isArray(row.cells) || typeof row.cells[at] !== 'string') return row;
    const cells = [...(row.cells as unknown[])];
    cells[at] = '<age>';
    return { ...row, cells };
  });
  return { ...obj, rows };
}
