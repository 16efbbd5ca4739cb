/**
 * encoding/json's syntax check (scanner.go's checkValid), for its error messages: where a body is
 * not JSON, kube-apiserver answers with Go's words — `invalid character 'x' after object key`,
 * `unexpected end of JSON input` — not JavaScript's. sigs.k8s.io/json, which the apiserver's
 * serializer uses, keeps the standard library's scanner. Undefined for valid JSON.
 *
 * A port rather than a library: the point is the exact wording of Go's state machine, which no
 * JavaScript parser reproduces. It walks bytes, as Go does.
 */

type Step = (c: number) => Step | string | 'continue';

export function goJsonSyntaxError(data: Uint8Array): string | undefined {
  const stack: Array<'objectKey' | 'objectValue' | 'arrayValue'> = [];
  const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
  const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
  const err = (c: number, context: string) => `invalid character ${quoteChar(c)} ${context}`;

  let step: Step;
  // A value ended: what may follow depends on what encloses it.
  const endValue: Step = (c) => {
    const n = stack.length;
    if (n === 0) return endTop(c);
    if (isSpace(c)) return ((step = endValue), 'continue');
    const top = stack[n - 1];
    if (top === 'objectKey') {
      if (c === 0x3a /* : */)
        return ((stack[n - 1] = 'objectValue'), (step = beginValue), 'continue');
      return err(c, 'after object key');
    }
    if (top === 'objectValue') {
      if (c === 0x2c /* , */)
        return ((stack[n - 1] = 'objectKey'), (step = beginString), 'continue');
      if (c === 0x7d /* } */) return (stack.pop(), (step = endValue), 'continue');
      return err(c, 'after object key:value pair');
    }
    if (c === 0x2c) return ((step = beginValue), 'continue');
    if (c === 0x5d /* ] */) return (stack.pop(), (step = endValue), 'continue');
    return err(c, 'after array element');
  };
  const endTop: Step = (c) => {
    step = endTop;
    return isSpace(c) ? 'continue' : err(c, 'after top-level value');
  };
  const beginValue: Step = (c) => {
    if (isSpace(c)) return 'continue';
    switch (c) {
      case 0x7b: // {
        stack.push('objectKey');
        step = beginStringOrEmpty;
        return 'continue';
      case 0x5b: // [
        stack.push('arrayValue');
        step = beginValueOrEmpty;
        return 'continue';
      case 0x22: // "
        step = inString;
        return 'continue';
      case 0x2d: // -
        step = neg;
        return 'continue';
      case 0x30:
        step = zero;
        return 'continue';
      case 0x74: // t
        step = literal('true', 1);
        return 'continue';
      case 0x66: // f
        step = literal('false', 1);
        return 'continue';
      case 0x6e: // n
        step = literal('null', 1);
        return 'continue';
    }
    if (c >= 0x31 && c <= 0x39) return ((step = one), 'continue');
    return err(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return 'continue';
    if (c === 0x5d) return endValue(c);
    return beginValue(c);
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return 'continue';
    if (c === 0x7d) {
      stack[stack.length - 1] = 'objectValue';
      return endValue(c);
    }
    return beginString(c);
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return 'continue';
    if (c === 0x22) return ((step = inString), 'continue');
    return err(c, 'looking for beginning of object key string');
  };
  const inString: Step = (c) => {
    if (c === 0x22) return ((step = endValue), 'continue');
    if (c === 0x5c) return ((step = inStringEsc), 'continue');
    if (c < 0x20) return err(c, 'in string literal');
    return 'continue';
  };
  const inStringEsc: Step = (c) => {
    if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c))
      return ((step = inString), 'continue');
    if (c === 0x75) return ((step = escU(1)), 'continue');
    return err(c, 'in string escape code');
  };
  const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
  const escU =
    (i: number): Step =>
    (c) => {
      if (!isHex(c)) return err(c, 'in \\u hexadecimal character escape');
      step = i === 4 ? inString : escU(i + 1);
      return 'continue';
    };
  const neg: Step = (c) => {
    if (c === 0x30) return ((step = zero), 'continue');
    if (c >= 0x31 && c <= 0x39) return ((step = one), 'continue');
    return err(c, 'in numeric literal');
  };
  const one: Step = (c) => (isDigit(c) ? 'continue' : zero(c));
  const zero: Step = (c) => {
    if (c === 0x2e) return ((step = dot), 'continue');
    if (c === 0x65 || c === 0x45) return ((step = exp), 'continue');
    return endValue(c);
  };
  const dot: Step = (c) => {
    if (isDigit(c)) return ((step = dot0), 'continue');
    return err(c, 'after decimal point in numeric literal');
  };
  const dot0: Step = (c) => {
    if (isDigit(c)) return 'continue';
    if (c === 0x65 || c === 0x45) return ((step = exp), 'continue');
    return endValue(c);
  };
  const exp: Step = (c) => {
    if (c === 0x2b || c === 0x2d) return ((step = expSign), 'continue');
    return expSign(c);
  };
  const expSign: Step = (c) => {
    if (isDigit(c)) return ((step = exp0), 'continue');
    return err(c, 'in exponent of numeric literal');
  };
  const exp0: Step = (c) => (isDigit(c) ? 'continue' : endValue(c));
  const literal =
    (word: string, i: number): Step =>
    (c) => {
      const want = word.charCodeAt(i);
      if (c !== want) return err(c, `in literal ${word} (expecting ${quoteChar(want)})`);
      step = i === word.length - 1 ? endValue : literal(word, i + 1);
      return 'continue';
    };

  step = beginValue;
  for (const c of data) {
    const r = step(c);
    if (r !== 'continue') return r as string;
  }
  // eof: only a finished top-level value may end the input.
  if (step === endTop || (step === endValue && stack.length === 0)) return undefined;
  if (stack.length === 0 && (step === one || step === zero || step === dot0 || step === exp0))
    return undefined;
  return 'unexpected end of JSON input';
}

/** quoteChar: the byte as a Go character literal. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const special: Record<number, string> = {
    7: '\\a',
    8: '\\b',
    9: '\\t',
    10: '\\n',
    11: '\\v',
    12: '\\f',
    13: '\\r',
    0x5c: '\\\\',
  };
  if (special[c]) return `'${special[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if (c >= 0x80 && c < 0xa0) return `'\\u00${c.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}
