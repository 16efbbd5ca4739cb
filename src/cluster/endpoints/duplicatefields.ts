/**
 * The duplicate fields of a JSON body, as sigs.k8s.io/json's strict decoding reports them
 * (`duplicate field "spec.replicas"`): JSON.parse keeps the last of two equal keys without a word,
 * kube-apiserver refuses the body under fieldValidation=Strict and warns under Warn. Paths are
 * dotted, array items by index (`spec.containers[0].name`), in document order.
 *
 * A scanner of its own rather than a library: it runs on every JSON write body, after JSON.parse
 * has accepted the text, so it only tracks keys and nesting and never builds values.
 */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  // One frame per open object or array: the keys seen (objects) or the next index (arrays).
  const frames: Array<{ keys?: Set<string>; index: number; path: string; key?: string }> = [];
  let i = 0;
  const n = text.length;
  const childPath = (): string => {
    const top = frames[frames.length - 1];
    if (!top) return '';
    if (top.keys) return top.path ? `${top.path}.${top.key ?? ''}` : (top.key ?? '');
    return `${top.path}[${top.index}]`;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      const top = frames[frames.length - 1];
      // A string is a key when it sits in an object and a colon follows it.
      if (top?.keys && nextSignificant(text, end) === 0x3a) {
        // Most keys have no escape: their text is the key.
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
        if (top.keys.has(key)) out.push(top.path ? `${top.path}.${key}` : key);
        else top.keys.add(key);
        top.key = key;
      }
      i = end;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const path = childPath();
      frames.push(c === 0x7b ? { keys: new Set(), index: 0, path } : { index: 0, path });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      frames.pop();
    } else if (c === 0x2c /* , */) {
      const top = frames[frames.length - 1];
      if (top && !top.keys) top.index++;
    }
    i++;
  }
  return out;
}

/** The index just past the string literal opening at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return text.length;
    let backslashes = 0;
    for (let j = q - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}

function nextSignificant(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
}
