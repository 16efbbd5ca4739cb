/**
 * The kubeconfig a client needs for the served cluster: server URL, CA data, bearer token.
 *
 * Written into a file that may already be a user's kubeconfig (with production contexts), it is
 * merged the way kind merges its clusters in: a cluster, a user and a context, all named for the
 * served cluster, replace entries of that name or are appended; everything else, unknown fields
 * and comments included, stays as it was. Unlike kind, current-context is only set when the file
 * had none, so a user's kubectl does not silently switch clusters. Removing undoes exactly that
 * (restoring entries it replaced), on the file as it is then. Files are written atomically, 0600,
 * under clientcmd's `FILE.lock` (kubeconfiglock.ts).
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import YAML, { isMap, isSeq } from 'yaml';
import type { Document } from 'yaml';
import { writeFileAtomic } from '../storage/atomicfile';
import { withKubeconfigLock } from './kubeconfiglock';

export interface KubeconfigParams {
  server: string;
  caPem: string;
  token: string;
  contextName?: string;
  namespace?: string;
}

const SECTIONS = ['clusters', 'users', 'contexts'] as const;
type Section = (typeof SECTIONS)[number];

function entries(p: KubeconfigParams): Record<Section, Record<string, unknown>> {
  const name = p.contextName ?? 'reconcile-studio';
  return {
    clusters: {
      name,
      cluster: {
        server: p.server,
        'certificate-authority-data': Buffer.from(p.caPem).toString('base64'),
      },
    },
    users: { name, user: { token: p.token } },
    contexts: {
      name,
      context: { cluster: name, user: name, namespace: p.namespace ?? 'default' },
    },
  };
}

export function renderKubeconfig(p: KubeconfigParams): string {
  const e = entries(p);
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [e.clusters],
    users: [e.users],
    contexts: [e.contexts],
    'current-context': e.contexts.name,
    preferences: {},
  });
}

/** What a merge changed, so that it can be undone. */
export interface KubeconfigUndo {
  name: string;
  /** The entries of the same name the merge replaced (restored on undo). */
  replaced: Partial<Record<Section, unknown>>;
  /** Whether the merge set current-context (the file had none). */
  setCurrentContext: boolean;
}

function parse(text: string, file: string): Document {
  const doc = YAML.parseDocument(text);
  if (doc.errors.length)
    throw new Error(`${file} is not a kubeconfig: ${doc.errors[0].message.split('\n')[0]}`);
  if (doc.contents === null) return new YAML.Document({ apiVersion: 'v1', kind: 'Config' });
  if (!isMap(doc.contents)) throw new Error(`${file} is not a kubeconfig: not a YAML mapping`);
  return doc;
}

function indexOf(doc: Document, section: Section, name: string, file: string): number {
  const seq = doc.get(section);
  if (seq === null || seq === undefined) {
    doc.set(section, doc.createNode([]));
    return -1;
  }
  if (!isSeq(seq)) throw new Error(`${file} is not a kubeconfig: ${section} is not a list`);
  return seq.items.findIndex((it) => isMap(it) && it.get('name') === name);
}

/** Merges the served cluster's entries into the text of a kubeconfig. */
export function mergeKubeconfig(
  existing: string,
  p: KubeconfigParams,
  file = 'kubeconfig',
): { text: string; undo: KubeconfigUndo } {
  const doc = parse(existing, file);
  const e = entries(p);
  const name = e.contexts.name as string;
  const undo: KubeconfigUndo = { name, replaced: {}, setCurrentContext: false };
  for (const section of SECTIONS) {
    const i = indexOf(doc, section, name, file);
    const seq = doc.get(section) as YAML.YAMLSeq;
    const node = doc.createNode(e[section]);
    if (i >= 0) {
      undo.replaced[section] = (seq.items[i] as YAML.YAMLMap).toJSON();
      seq.items[i] = node;
    } else seq.items.push(node);
  }
  if (!doc.get('current-context')) {
    doc.set('current-context', name);
    undo.setCurrentContext = true;
  }
  if (!doc.has('apiVersion')) doc.set('apiVersion', 'v1');
  if (!doc.has('kind')) doc.set('kind', 'Config');
  return { text: doc.toString(), undo };
}

/** Undoes a merge on the kubeconfig as it is now; `empty` when nothing but the skeleton is left. */
export function unmergeKubeconfig(
  current: string,
  undo: KubeconfigUndo,
  file = 'kubeconfig',
): { text: string; empty: boolean } {
  const doc = parse(current, file);
  let left = 0;
  for (const section of SECTIONS) {
    const i = indexOf(doc, section, undo.name, file);
    const seq = doc.get(section) as YAML.YAMLSeq;
    if (i >= 0) {
      const prev = undo.replaced[section];
      if (prev !== undefined) seq.items[i] = doc.createNode(prev);
      else seq.items.splice(i, 1);
    }
    left += seq.items.length;
  }
  if (undo.setCurrentContext && doc.get('current-context') === undo.name)
    doc.set('current-context', '');
  return { text: doc.toString(), empty: left === 0 };
}

export interface InstalledKubeconfig {
  file: string;
  name: string;
  /** The file's current-context when it already had one (left as it was). */
  keptCurrentContext?: string;
  /**
   * Takes the entries out again (deleting the file if it was created for them). Idempotent.
   * Throws, changing nothing, while another writer holds the kubeconfig's lock.
   */
  remove(): void;
}

/**
 * Merges the served cluster into the kubeconfig `file` (created if missing), 0600, holding
 * clientcmd's lock on it (kubeconfiglock.ts) for the read-modify-write, as the removal does too.
 */
export function installKubeconfig(file: string, p: KubeconfigParams): InstalledKubeconfig {
  // Write through a symlinked ~/.kube/config, not over the link; the lock is on the name given,
  // which is the one kubectl locks.
  const target = existsSync(file) ? realpathSync(file) : file;
  const { existed, before, undo } = withKubeconfigLock(file, () => {
    const existed = existsSync(target);
    const before = existed ? readFileSync(target, 'utf8') : '';
    const { text, undo } = mergeKubeconfig(before, p, target);
    writeFileAtomic(target, text);
    return { existed, before, undo };
  });
  let removed = false;
  const kept = undo.setCurrentContext
    ? undefined
    : String((parse(before, target).get('current-context') as string | undefined) ?? '');
  return {
    file: target,
    name: undo.name,
    ...(kept !== undefined ? { keptCurrentContext: kept } : {}),
    remove: () => {
      if (removed) return;
      withKubeconfigLock(file, () => {
        if (!existsSync(target)) return;
        const out = unmergeKubeconfig(readFileSync(target, 'utf8'), undo, target);
        if (out.empty && !existed) rmSync(target, { force: true });
        else writeFileAtomic(target, out.text);
      });
      removed = true; // only once done: a removal refused by another writer's lock can be retried
    },
  };
}

/**
 * Writes a kubeconfig of its own (never a user's: see installKubeconfig for those), readable by its
 * owner only (it holds a bearer token), atomically: a client starting at the same moment reads
 * the old file or the new one, never half of one.
 */
export function writeKubeconfigFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, text);
}
