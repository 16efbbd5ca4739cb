/**
 * Cron schedules as kube-controller-manager reads them (robfig/cron v3's ParseStandard: five
 * fields — minute, hour, day of month, month, day of week — with lists, ranges, steps and names,
 * the @yearly/@annually/@monthly/@weekly/@daily/@midnight/@hourly descriptors and @every
 * DURATION, an optional TZ= or CRON_TZ= prefix), with the parser's own error messages (the
 * apiserver puts them in its Invalid answer), and Next: the first activation after a time, in the
 * schedule's time zone (UTC unless one is given: kube-controller-manager's local zone, UTC where it
 * runs in a container).
 */

/** A schedule: the first activation strictly after `t` (ms since the epoch); undefined if none within five years. */
export interface CronSchedule {
  next(t: number): number | undefined;
}

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: {
    jan: 1,
    feb: 2,
    mar: 3,
    apr: 4,
    may: 5,
    jun: 6,
    jul: 7,
    aug: 8,
    sep: 9,
    oct: 10,
    nov: 11,
    dec: 12,
  },
};
const DOW: Bounds = {
  min: 0,
  max: 6,
  names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 },
};

/** The values a field allows, and whether it was a `*` or `?` (starBit: day matching uses it). */
interface FieldSet {
  values: Set<number>;
  star: boolean;
}

function all(r: Bounds): FieldSet {
  return { values: range(r.min, r.max, 1), star: true };
}

function one(v: number): FieldSet {
  return { values: new Set([v]), star: false };
}

function range(start: number, end: number, step: number): Set<number> {
  const s = new Set<number>();
  for (let i = start; i <= end; i += step) s.add(i);
  return s;
}

/** strconv.Atoi as mustParseInt calls it. */
function mustParseInt(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr))
    throw new Error(
      `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`,
    );
  const n = Number(expr);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names?: Record<string, number>): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? mustParseInt(expr);
}

/** getRange. */
function getRange(expr: string, r: Bounds): FieldSet {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0], r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1], r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]);
    // "N/step" means "N-max/step".
    if (singleDigit) end = r.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < r.min)
    throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end)
    throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  return { values: range(start, end, step), star };
}

function getField(field: string, r: Bounds): FieldSet {
  const out: FieldSet = { values: new Set(), star: false };
  for (const expr of field.split(',').filter((e) => e !== '')) {
    const f = getRange(expr, r);
    for (const v of f.values) out.values.add(v);
    out.star ||= f.star;
  }
  return out;
}

/** Go's time.ParseDuration, for @every. */
export function parseGoDuration(s: string): number {
  const units: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    µs: 1e-3,
    μs: 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
  };
  const invalid = () => new Error(`time: invalid duration ${JSON.stringify(s)}`);
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest[0] === '-' ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (!rest) throw invalid();
  let total = 0;
  while (rest) {
    const m = /^(\d*\.?\d*)([a-zµμ]*)/.exec(rest);
    if (!m || !m[1] || m[1] === '.') throw invalid();
    if (!m[2]) throw new Error(`time: missing unit in duration ${JSON.stringify(s)}`);
    const unit = units[m[2]];
    if (unit === undefined)
      throw new Error(
        `time: unknown unit ${JSON.stringify(m[2])} in duration ${JSON.stringify(s)}`,
      );
    total += Number(m[1]) * unit;
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

/** A time's wall clock in a zone, as the fields of a UTC date (ms), via Intl. */
function wallClock(t: number, zone: string): number {
  if (zone === 'UTC') return t;
  const parts = zoneFormat(zone).formatToParts(new Date(t));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const hour = get('hour') % 24;
  return Date.UTC(get('year'), get('month') - 1, get('day'), hour, get('minute'), get('second'));
}

const formats = new Map<string, Intl.DateTimeFormat>();
function zoneFormat(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, f);
  }
  return f;
}

/**
 * The instant a wall-clock time in a zone names: the earlier one where the clock falls back and
 * the time is seen twice, the moment after the jump where it springs forward and the time is
 * never seen (as time.Date normalizes it).
 */
function fromWallClock(wall: number, zone: string): number {
  if (zone === 'UTC') return wall;
  const a = wall - (wallClock(wall, zone) - wall);
  const b = wall - (wallClock(a, zone) - a);
  const exact = [a, b].filter((t) => wallClock(t, zone) === wall);
  return exact.length ? Math.min(...exact) : Math.max(a, b);
}

/** time.Format(time.RFC3339) of an instant in a zone: its wall clock and offset, `Z` for none. */
export function formatRfc3339InZone(t: number, zone: string): string {
  const secs = Math.floor(t / 1000) * 1000;
  const wall = wallClock(secs, zone);
  const offMin = Math.round((wall - secs) / 60_000);
  const stamp = new Date(wall).toISOString().slice(0, 19);
  if (offMin === 0) return `${stamp}Z`;
  const a = Math.abs(offMin);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${stamp}${offMin < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** Whether a zone name is one the runtime knows (time.LoadLocation). */
export function isKnownTimeZone(zone: string): boolean {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return true;
  try {
    zoneFormat(zone);
    return true;
  } catch {
    return false;
  }
}

class SpecSchedule implements CronSchedule {
  constructor(
    private readonly minute: FieldSet,
    private readonly hour: FieldSet,
    private readonly dom: FieldSet,
    private readonly month: FieldSet,
    private readonly dow: FieldSet,
    private readonly zone: string,
  ) {}

  private dayMatches(d: Date): boolean {
    const domMatch = this.dom.values.has(d.getUTCDate());
    const dowMatch = this.dow.values.has(d.getUTCDay());
    return this.dom.star || this.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  }

  /** SpecSchedule.Next, walking the zone's wall clock (seconds are always 0 in the standard form). */
  next(t: number): number | undefined {
    let w = new Date(Math.floor(wallClock(t, this.zone) / 1000) * 1000 + 1000);
    const yearLimit = w.getUTCFullYear() + 5;
    let added = false;
    const set = (y: number, mo: number, d = 1, h = 0, mi = 0) =>
      (w = new Date(Date.UTC(y, mo, d, h, mi)));
    wrap: for (;;) {
      if (w.getUTCFullYear() > yearLimit) return undefined;
      while (!this.month.values.has(w.getUTCMonth() + 1)) {
        if (!added) {
          added = true;
          set(w.getUTCFullYear(), w.getUTCMonth());
        }
        set(w.getUTCFullYear(), w.getUTCMonth() + 1, w.getUTCDate());
        if (w.getUTCMonth() === 0) continue wrap;
      }
      while (!this.dayMatches(w)) {
        if (!added) {
          added = true;
          set(w.getUTCFullYear(), w.getUTCMonth(), w.getUTCDate());
        }
        set(w.getUTCFullYear(), w.getUTCMonth(), w.getUTCDate() + 1);
        if (w.getUTCDate() === 1) continue wrap;
      }
      while (!this.hour.values.has(w.getUTCHours())) {
        if (!added) {
          added = true;
          set(w.getUTCFullYear(), w.getUTCMonth(), w.getUTCDate(), w.getUTCHours());
        }
        w = new Date(w.getTime() + 3_600_000);
        if (w.getUTCHours() === 0) continue wrap;
      }
      while (!this.minute.values.has(w.getUTCMinutes())) {
        if (!added) {
          added = true;
          w = new Date(Math.floor(w.getTime() / 60_000) * 60_000);
        }
        w = new Date(w.getTime() + 60_000);
        if (w.getUTCMinutes() === 0) continue wrap;
      }
      while (w.getUTCSeconds() !== 0) {
        if (!added) {
          added = true;
          w = new Date(Math.floor(w.getTime() / 1000) * 1000);
        }
        w = new Date(w.getTime() + 1000);
        if (w.getUTCSeconds() === 0) continue wrap;
      }
      return fromWallClock(w.getTime(), this.zone);
    }
  }
}

/** ConstantDelaySchedule (@every): the delay rounded down to whole seconds, at least one. */
class EverySchedule implements CronSchedule {
  private readonly delay: number;
  constructor(ms: number) {
    const d = Math.max(ms, 1000);
    this.delay = d - (d % 1000);
  }
  next(t: number): number {
    return t - (t % 1000) + this.delay;
  }
}

function parseDescriptor(d: string, zone: string): CronSchedule {
  const spec = (m: FieldSet, h: FieldSet, dom: FieldSet, mo: FieldSet, dow: FieldSet) =>
    new SpecSchedule(m, h, dom, mo, dow, zone);
  switch (d) {
    case '@yearly':
    case '@annually':
      return spec(one(0), one(0), one(1), one(1), all(DOW));
    case '@monthly':
      return spec(one(0), one(0), one(1), all(MONTHS), all(DOW));
    case '@weekly':
      return spec(one(0), one(0), all(DOM), all(MONTHS), one(0));
    case '@daily':
    case '@midnight':
      return spec(one(0), one(0), all(DOM), all(MONTHS), all(DOW));
    case '@hourly':
      return spec(one(0), all(HOURS), all(DOM), all(MONTHS), all(DOW));
  }
  if (d.startsWith('@every ')) {
    let ms: number;
    try {
      ms = parseGoDuration(d.slice('@every '.length));
    } catch (err) {
      throw new Error(`failed to parse duration ${d}: ${(err as Error).message}`);
    }
    return new EverySchedule(ms);
  }
  throw new Error(`unrecognized descriptor: ${d}`);
}

/**
 * cron.ParseStandard; throws Error with the parser's message. `zone` is the zone a schedule
 * without a TZ= prefix runs in.
 */
export function parseCronSchedule(input: string, zone = 'UTC'): CronSchedule {
  if (!input) throw new Error('empty spec string');
  let spec = input;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const name = spec.slice(spec.indexOf('=') + 1, i < 0 ? undefined : i);
    if (!isKnownTimeZone(name) || name === '')
      throw new Error(`provided bad location ${name}: unknown time zone ${name}`);
    zone = name === 'Local' ? 'UTC' : name;
    spec = i < 0 ? '' : spec.slice(i).trim();
  }
  if (spec.startsWith('@')) return parseDescriptor(spec, zone);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5)
    throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  return new SpecSchedule(
    getField(fields[0], MINUTES),
    getField(fields[1], HOURS),
    getField(fields[2], DOM),
    getField(fields[3], MONTHS),
    getField(fields[4], DOW),
    zone,
  );
}
