/**
 * Kubernetes' CEL URL library (k8s.io/apiserver/pkg/cel/library/urls.go, in every CEL
 * environment): `isURL(s)`, `url(s)` and the URL methods `getScheme`, `getHost`, `getHostname`,
 * `getPort`, `getEscapedPath` and `getQuery`. The library checks a string with Go's
 * url.ParseRequestURI (an absolute URL or an absolute path) and reads it with url.Parse; both are
 * Go's net/url parser, followed here with its error text (`parse "x": invalid URI for request`).
 * A URL is held as its source text.
 */
import { CelScalar, celFunc, celMethod } from '@bufbuild/cel';
import type { CelValue } from '@bufbuild/cel';
import { OPAQUE, expect, opaqueType } from './celopaque';

const { BOOL, STRING } = CelScalar;

interface GoURL {
  scheme: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
}

type Mode = 'path' | 'host' | 'query';

/** shouldEscape of net/url for the modes the library reaches. */
function shouldEscape(c: number, mode: Mode): boolean {
  const ch = String.fromCharCode(c);
  if (/[a-zA-Z0-9]/.test(ch)) return false;
  if (mode === 'host' && '!$&\'()*+,;=:[]<>"'.includes(ch)) return false;
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) return mode === 'path' ? ch === '?' : true;
  return true;
}

const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** net/url's unescape; errors are its EscapeError and InvalidHostError texts. */
function unescape(s: string, mode: Mode): string {
  const out: number[] = [];
  const bytes = Buffer.from(s, 'utf8');
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x25) {
      const code = s.slice(i, i + 3);
      if (
        !isHex(String.fromCharCode(bytes[i + 1] ?? 0)) ||
        !isHex(String.fromCharCode(bytes[i + 2] ?? 0))
      )
        throw new Error(
          `invalid URL escape ${JSON.stringify(Buffer.from(bytes.subarray(i, i + 3)).toString())}`,
        );
      if (mode === 'host' && parseInt(code[1]!, 16) < 8 && code !== '%25')
        throw new Error(`invalid URL escape ${JSON.stringify(code)}`);
      out.push(parseInt(code.slice(1), 16));
      i += 2;
    } else if (c === 0x2b && mode === 'query') out.push(0x20);
    else {
      if (mode === 'host' && c < 0x80 && shouldEscape(c, mode))
        throw new Error(`invalid character ${JSON.stringify(String.fromCharCode(c))} in host name`);
      out.push(c);
    }
  }
  return Buffer.from(out).toString('utf8');
}

function escapePath(s: string): string {
  let out = '';
  for (const c of Buffer.from(s, 'utf8'))
    out += shouldEscape(c, 'path')
      ? `%${c.toString(16).toUpperCase().padStart(2, '0')}`
      : String.fromCharCode(c);
  return out;
}

/** validEncoded(s, encodePath): only characters a path may carry unescaped, and escapes. */
function validEncodedPath(s: string): boolean {
  for (const c of Buffer.from(s, 'utf8')) {
    if ("!$&'()*+,;=:@[]%".includes(String.fromCharCode(c))) continue;
    if (shouldEscape(c, 'path')) return false;
  }
  return true;
}

const validOptionalPort = (p: string) => p === '' || /^:[0-9]*$/.test(p);

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new Error("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort))
      throw new Error(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0 && !validOptionalPort(host.slice(i)))
      throw new Error(`invalid port ${JSON.stringify(host.slice(i))} after host`);
  }
  return unescape(host, 'host');
}

/** validUserinfo: RFC 3986's userinfo characters (and '"', as Go allows). */
const validUserinfo = (s: string) => /^[a-zA-Z0-9\-._:~!$&'()*+,;=%@"]*$/.test(s);

function parseAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(authority.slice(at + 1));
  if (at >= 0 && !validUserinfo(authority.slice(0, at)))
    throw new Error('net/url: invalid userinfo');
  return host;
}

/** getScheme: letters first, then letters, digits, `+ - .`, up to the first colon. */
function splitScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new Error('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

/** net/url's parse (without the fragment, which Parse cuts first). */
function goParse(raw: string, viaRequest: boolean): GoURL {
  const u: GoURL = { scheme: '', host: '', path: '', rawPath: '', rawQuery: '' };
  if ([...raw].some((c) => c < ' ' || c === '\x7f'))
    throw new Error('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new Error('empty url');
  if (raw === '*') return { ...u, path: '*' };
  const [scheme, afterScheme] = splitScheme(raw);
  u.scheme = scheme.toLowerCase();
  let rest = afterScheme;
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) [rest, u.rawQuery] = [rest.slice(0, q), rest.slice(q + 1)];
  }
  if (!rest.startsWith('/')) {
    if (u.scheme) return u; // opaque
    if (viaRequest) throw new Error('invalid URI for request');
    if (rest.split('/')[0]!.includes(':'))
      throw new Error('first path segment in URL cannot contain colon');
  }
  if ((u.scheme || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    u.host = parseAuthority(authority);
  }
  u.path = unescape(rest, 'path');
  u.rawPath = escapePath(u.path) === rest ? '' : rest;
  return u;
}

/** url.ParseRequestURI / url.Parse, their errors as `parse "<url>": <reason>`. */
function parseURL(raw: string, viaRequest: boolean): GoURL {
  const input = viaRequest ? raw : raw.split('#')[0]!;
  try {
    return goParse(input, viaRequest);
  } catch (err) {
    throw new Error(`parse ${JSON.stringify(raw)}: ${(err as Error).message}`);
  }
}

/** The error of url.ParseRequestURI(s), undefined when s is a request URI (format.uri uses it). */
export function requestURIError(s: string): string | undefined {
  try {
    parseURL(s, true);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon)))
    [host, port] = [host.slice(0, colon), host.slice(colon + 1)];
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

function escapedPath(u: GoURL): string {
  if (u.rawPath && validEncodedPath(u.rawPath)) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // an invalid raw path falls back to escaping the path
    }
  }
  return u.path === '*' ? '*' : escapePath(u.path);
}

/** url.ParseQuery: `&`-separated pairs; pairs with `;` or bad escapes are skipped. */
function query(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of raw.split('&')) {
    if (!pair || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    try {
      const key = unescape(eq < 0 ? pair : pair.slice(0, eq), 'query');
      const value = unescape(eq < 0 ? '' : pair.slice(eq + 1), 'query');
      out.set(key, [...(out.get(key) ?? []), value]);
    } catch {
      continue;
    }
  }
  return out;
}

const URL_TYPE = opaqueType<string>('URL');

const read = (v: CelValue) => parseURL(expect(URL_TYPE, v), false);

const getter = (name: string, get: (u: GoURL) => string) =>
  celMethod(name, OPAQUE, [], STRING, function () {
    return get(read(this));
  });

export const urlLibrary = [
  celFunc('isURL', [STRING], BOOL, (s) => requestURIError(s) === undefined),
  celFunc('url', [STRING], OPAQUE, (s) => {
    try {
      parseURL(s, true);
      // Parsed again as url.Parse, which cuts the fragment first; the methods read that parse.
      parseURL(s, false);
    } catch (err) {
      throw new Error(`URL parse error during conversion from string: ${(err as Error).message}`);
    }
    return URL_TYPE.wrap(s);
  }),
  getter('getScheme', (u) => u.scheme),
  getter('getHost', (u) => u.host),
  getter('getHostname', (u) => splitHostPort(u.host)[0]),
  getter('getPort', (u) => splitHostPort(u.host)[1]),
  getter('getEscapedPath', escapedPath),
  celMethod('getQuery', OPAQUE, [], OPAQUE, function () {
    return query(read(this).rawQuery);
  }),
];
