/**
 * The Prometheus text exposition format (version 0.0.4), which a manager's `/metrics` endpoint
 * serves: `# HELP` / `# TYPE` comments and `name{label="value",…} value [timestamp]` samples.
 * Enough of it to read controller-runtime's and client-go's counters and gauges.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parsePromText(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const s = parseSample(line);
    if (s) out.push(s);
  }
  return out;
}

function parseSample(line: string): Sample | undefined {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  if (!m) return undefined;
  const name = m[1];
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    for (;;) {
      while (line[i] === ' ' || line[i] === ',') i++;
      if (line[i] === '}') {
        i++;
        break;
      }
      const lm = /^([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"/.exec(line.slice(i));
      if (!lm) return undefined;
      i += lm[0].length;
      let v = '';
      // Label values escape backslash, double quote and line feed.
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length) {
          const c = line[i + 1];
          v += c === 'n' ? '\n' : c;
          i += 2;
        } else v += line[i++];
      }
      if (line[i] !== '"') return undefined;
      i++;
      labels[lm[1]] = v;
    }
  }
  const [valueText] = line.slice(i).trim().split(/\s+/);
  const value = parseValue(valueText ?? '');
  if (value === undefined) return undefined;
  return { name, labels, value };
}

function parseValue(t: string): number | undefined {
  if (t === '+Inf') return Infinity;
  if (t === '-Inf') return -Infinity;
  if (t === 'NaN') return NaN;
  const v = Number(t);
  return t !== '' && !Number.isNaN(v) ? v : undefined;
}

/** The value of the first sample named `name` whose labels include `labels`; undefined if none. */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;
}
