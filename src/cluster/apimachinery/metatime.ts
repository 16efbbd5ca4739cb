/**
 * metav1.Time and metav1.MicroTime as the apiserver decodes and writes them (apimachinery's
 * time.go and micro_time.go). Decoding is Go's `time.Parse` with the layout RFC3339
 * (`2006-01-02T15:04:05Z07:00`, which takes a fraction of any width after the seconds) for Time,
 * and RFC3339Micro (`2006-01-02T15:04:05.000000Z07:00`, exactly six fractional digits) for
 * MicroTime; what does not parse is Go's ParseError, word for word. Encoding is the instant in
 * UTC in the same layout, so a stored Time has whole seconds (the fraction is truncated, not
 * rounded) and a stored MicroTime exactly six fractional digits, whatever zone the client wrote.
 */
export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

export type MetaTimeResult = { value: string } | { error: string };

/** Go's strconv.Quote for the ASCII a timestamp holds. */
const quote = (s: string) => JSON.stringify(s);

const isDigit = (s: string, i: number) => i < s.length && s[i] >= '0' && s[i] <= '9';

/** time.getnum: one or two digits; `fixed` wants two. */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

const daysIn = (month: number, year: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/**
 * Parses `s` as metav1.Time (`micro` false) or metav1.MicroTime, and answers the string the
 * apiserver stores for it, or Go's parse error.
 */
export function parseMetaTime(s: string, micro: boolean): MetaTimeResult {
  const layout = micro ? RFC3339_MICRO : RFC3339;
  const bad = (valueElem: string, layoutElem: string): MetaTimeResult => ({
    error: `parsing time ${quote(s)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`,
  });
  const outOfRange = (what: string): MetaTimeResult => ({
    error: `parsing time ${quote(s)}: ${what} out of range`,
  });
  let v = s;
  // The layout's chunks in order: literals must match, numbers are read as time.Parse reads them.
  const literal = (lit: string): boolean => {
    if (!v.startsWith(lit)) return false;
    v = v.slice(lit.length);
    return true;
  };
  if (v.length < 4 || !/^\d{4}/.test(v)) return bad(v, '2006');
  const year = Number(v.slice(0, 4));
  v = v.slice(4);
  if (!literal('-')) return bad(v, '-');
  const month = getnum(v, true);
  if (!month) return bad(v, '01');
  if (month[0] < 1 || month[0] > 12) return outOfRange('month');
  v = month[1];
  if (!literal('-')) return bad(v, '-');
  const day = getnum(v, true);
  if (!day) return bad(v, '02');
  if (day[0] > 31) return outOfRange('day');
  v = day[1];
  if (!literal('T')) return bad(v, 'T');
  const hour = getnum(v, false);
  if (!hour) return bad(v, '15');
  if (hour[0] >= 24) return outOfRange('hour');
  v = hour[1];
  if (!literal(':')) return bad(v, ':');
  const minute = getnum(v, true);
  if (!minute) return bad(v, '04');
  if (minute[0] >= 60) return outOfRange('minute');
  v = minute[1];
  if (!literal(':')) return bad(v, ':');
  const second = getnum(v, true);
  if (!second) return bad(v, '05');
  if (second[0] >= 60) return outOfRange('second');
  v = second[1];
  // The fraction's digits, kept as written (at most nine count, as parseNanoseconds reads them).
  let fraction = '';
  if (micro) {
    // stdFracSecond0: exactly the layout's number of digits.
    if (v.length < 7 || (v[0] !== '.' && v[0] !== ',') || !/^\d{6}$/.test(v.slice(1, 7)))
      return bad(v, '.000000');
    fraction = v.slice(1, 7);
    v = v.slice(7);
  } else if (v.length >= 2 && (v[0] === '.' || v[0] === ',') && isDigit(v, 1)) {
    // A fraction the layout does not name is taken whatever its width.
    let n = 2;
    while (isDigit(v, n)) n++;
    fraction = v.slice(1, Math.min(n, 10));
    v = v.slice(n);
  }
  // Z07:00: `Z`, or a sign, two digits, a colon and two digits.
  let offsetMinutes = 0;
  if (v[0] === 'Z') v = v.slice(1);
  else {
    const m = /^([+-])(\d\d):(\d\d)/.exec(v);
    if (!m) return bad(v, 'Z07:00');
    const [hh, mm] = [Number(m[2]), Number(m[3])];
    if (hh > 24) return outOfRange('time zone offset hour');
    if (mm > 60) return outOfRange('time zone offset minute');
    offsetMinutes = (m[1] === '-' ? -1 : 1) * (hh * 60 + mm);
    v = v.slice(6);
  }
  if (v.length > 0) return { error: `parsing time ${quote(s)}: extra text: ${quote(v)}` };
  if (day[0] < 1 || day[0] > daysIn(month[0], year)) return outOfRange('day');
  // The instant in UTC (offsets are whole minutes, so the fraction stays as it is).
  const d = new Date(0);
  d.setUTCFullYear(year, month[0] - 1, day[0]);
  d.setUTCHours(hour[0], minute[0] - offsetMinutes, second[0], 0);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
  const time = `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  return { value: `${date}T${time}${micro ? `.${fraction}` : ''}Z` };
}
