/**
 * A unified diff of two texts line by line, as github.com/pmezard/go-difflib writes it
 * (GetUnifiedDiffString with no file names: hunks only), which kube-apiserver uses in messages
 * (k8s.io/apimachinery/pkg/util/diff.Diff). go-difflib is a port of Python's difflib, and so is
 * this: SequenceMatcher with its "popular line" heuristic (autojunk: in a text of 200 lines or
 * more, a line seen more than 1% of the time does not seed a match), grouped opcodes with
 * `context` lines around each change, and difflib's range format (`@@ -8,7 +8,15 @@`, a one-line
 * range without its length). Hand-written because no kept npm library reproduces difflib's
 * matching: jsdiff's Myers diff can choose other hunks for the same texts.
 */

type Tag = 'equal' | 'replace' | 'delete' | 'insert';
type OpCode = [Tag, number, number, number, number];

/** difflib.SplitLines: each line with its "\n", the last given one too. */
export function splitLines(s: string): string[] {
  const lines = s.split(/(?<=\n)/);
  if (s.endsWith('\n')) lines.push(''); // strings.SplitAfter keeps the empty last piece
  lines[lines.length - 1] += '\n';
  return lines;
}

class SequenceMatcher {
  private readonly b2j = new Map<string, number[]>();

  constructor(
    private readonly a: string[],
    private readonly b: string[],
  ) {
    b.forEach((line, i) => {
      const at = this.b2j.get(line);
      if (at) at.push(i);
      else this.b2j.set(line, [i]);
    });
    if (b.length >= 200) {
      const ntest = Math.floor(b.length / 100) + 1;
      for (const [line, at] of [...this.b2j]) if (at.length > ntest) this.b2j.delete(line);
    }
  }

  private longestMatch(
    alo: number,
    ahi: number,
    blo: number,
    bhi: number,
  ): [number, number, number] {
    const { a, b } = this;
    let [besti, bestj, bestsize] = [alo, blo, 0];
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of this.b2j.get(a[i]!) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bestsize) [besti, bestj, bestsize] = [i - k + 1, j - k + 1, k];
      }
      j2len = next;
    }
    // No line is junk (no isjunk function), so every equal neighbour extends the match.
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1])
      [besti, bestj, bestsize] = [besti - 1, bestj - 1, bestsize + 1];
    while (
      besti + bestsize < ahi &&
      bestj + bestsize < bhi &&
      a[besti + bestsize] === b[bestj + bestsize]
    )
      bestsize++;
    return [besti, bestj, bestsize];
  }

  private matchingBlocks(): Array<[number, number, number]> {
    const queue: Array<[number, number, number, number]> = [[0, this.a.length, 0, this.b.length]];
    const blocks: Array<[number, number, number]> = [];
    while (queue.length) {
      const [alo, ahi, blo, bhi] = queue.pop()!;
      const [i, j, k] = this.longestMatch(alo, ahi, blo, bhi);
      if (!k) continue;
      blocks.push([i, j, k]);
      if (alo < i && blo < j) queue.push([alo, i, blo, j]);
      if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
    }
    blocks.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
    // Adjacent blocks collapse into one.
    const merged: Array<[number, number, number]> = [];
    let [i1, j1, k1] = [0, 0, 0];
    for (const [i2, j2, k2] of blocks) {
      if (i1 + k1 === i2 && j1 + k1 === j2) k1 += k2;
      else {
        if (k1) merged.push([i1, j1, k1]);
        [i1, j1, k1] = [i2, j2, k2];
      }
    }
    if (k1) merged.push([i1, j1, k1]);
    merged.push([this.a.length, this.b.length, 0]);
    return merged;
  }

  opCodes(): OpCode[] {
    let [i, j] = [0, 0];
    const out: OpCode[] = [];
    for (const [ai, bj, size] of this.matchingBlocks()) {
      const tag: Tag | undefined =
        i < ai && j < bj ? 'replace' : i < ai ? 'delete' : j < bj ? 'insert' : undefined;
      if (tag) out.push([tag, i, ai, j, bj]);
      [i, j] = [ai + size, bj + size];
      if (size) out.push(['equal', ai, i, bj, j]);
    }
    return out;
  }

  groupedOpCodes(n: number): OpCode[][] {
    let codes = this.opCodes();
    if (!codes.length) codes = [['equal', 0, 1, 0, 1]];
    // Fix up the leading and trailing unchanged runs.
    if (codes[0]![0] === 'equal') {
      const [tag, i1, i2, j1, j2] = codes[0]!;
      codes[0] = [tag, Math.max(i1, i2 - n), i2, Math.max(j1, j2 - n), j2];
    }
    const last = codes.length - 1;
    if (codes[last]![0] === 'equal') {
      const [tag, i1, i2, j1, j2] = codes[last]!;
      codes[last] = [tag, i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)];
    }
    const nn = n + n;
    const groups: OpCode[][] = [];
    let group: OpCode[] = [];
    for (const code of codes) {
      const [tag, , i2, , j2] = code;
      let [, i1, , j1] = code;
      // An unchanged run longer than 2n splits the hunk, with n lines on each side.
      if (tag === 'equal' && i2 - i1 > nn) {
        group.push([tag, i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)]);
        groups.push(group);
        group = [];
        [i1, j1] = [Math.max(i1, i2 - n), Math.max(j1, j2 - n)];
      }
      group.push([tag, i1, i2, j1, j2]);
    }
    if (group.length && !(group.length === 1 && group[0]![0] === 'equal')) groups.push(group);
    return groups;
  }
}

/** formatRangeUnified */
function range(start: number, stop: number): string {
  let beginning = start + 1;
  const length = stop - start;
  if (length === 1) return `${beginning}`;
  if (!length) beginning--;
  return `${beginning},${length}`;
}

/** GetUnifiedDiffString(UnifiedDiff{A: a, B: b, Context: context}): hunks, no file header. */
export function unifiedDiff(a: string[], b: string[], context: number): string {
  let out = '';
  for (const g of new SequenceMatcher(a, b).groupedOpCodes(context)) {
    const [first, last] = [g[0]!, g[g.length - 1]!];
    out += `@@ -${range(first[1], last[2])} +${range(first[3], last[4])} @@\n`;
    for (const [tag, i1, i2, j1, j2] of g) {
      if (tag === 'equal') {
        for (const line of a.slice(i1, i2)) out += ` ${line}`;
        continue;
      }
      if (tag === 'replace' || tag === 'delete')
        for (const line of a.slice(i1, i2)) out += `-${line}`;
      if (tag === 'replace' || tag === 'insert')
        for (const line of b.slice(j1, j2)) out += `+${line}`;
    }
  }
  return out;
}
