/**
 * The object a watch BOOKMARK carries for each built-in kind (generated/bookmarks.json, written
 * by scripts/apigen-bookmarks.mjs from the pinned release): the watch cache's empty object of the
 * kind's internal type, converted to the version watched — with what the conversion sets, such as
 * a Deployment's `replicas: 0`.
 */
import { readFileSync } from 'node:fs';
import { generatedFile } from './apidata';

type Obj = Record<string, unknown>;
let kinds: Record<string, Obj> | undefined;

/** A fresh copy of the kind's bookmark object, or undefined for a kind the release lacks. */
export function bookmarkBody(group: string, version: string, kind: string): Obj | undefined {
  kinds ??= (
    JSON.parse(readFileSync(generatedFile('bookmarks.json'), 'utf8')) as {
      kinds: Record<string, Obj>;
    }
  ).kinds;
  const o = kinds[`${group}/${version}/${kind}`];
  return o && structuredClone(o);
}
