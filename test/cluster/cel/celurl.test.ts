import { test } from 'node:test';
import { assertAllTrue, assertErrors } from '../cel';

test('url() reads scheme, host, hostname, port, escaped path and query as net/url does', () => {
  assertAllTrue([
    "url('https://example.com:80/').getScheme() == 'https' && url('/path').getScheme() == ''",
    "url('https://example.com:80/').getHost() == 'example.com:80' && url('https://[::1]:80/').getHost() == '[::1]:80'",
    "url('https://example.com:80/').getHostname() == 'example.com' && url('https://[::1]:80/').getHostname() == '::1'",
    "url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == ''",
    "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
    "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb' && url('https://example.com').getEscapedPath() == ''",
    "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
    "url('https://example.com/path?key with spaces=value+with+spaces#frag').getQuery() == {'key with spaces': ['value with spaces']}",
    "url('https://example.com/path?').getQuery() == {} && url('HTTPS://user@example.com/').getScheme() == 'https'",
    "isURL('https://example.com/') && isURL('/absolute-path') && !isURL('example.com') && !isURL('') && isURL('mailto:a@b')",
  ]);
});

test('url() refuses what url.ParseRequestURI refuses, with its error', () => {
  assertErrors([
    [
      "url('example.com')",
      'URL parse error during conversion from string: parse "example.com": invalid URI for request',
    ],
    [
      "url('https://example.com:port/')",
      'URL parse error during conversion from string: parse "https://example.com:port/": invalid port ":port" after host',
    ],
    [
      "url('://x')",
      'URL parse error during conversion from string: parse "://x": missing protocol scheme',
    ],
    [
      "url('/a%zz')",
      'URL parse error during conversion from string: parse "/a%zz": invalid URL escape "%zz"',
    ],
  ]);
});
