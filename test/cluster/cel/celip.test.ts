import { test } from 'node:test';
import { assertAllTrue, assertErrors } from '../cel';

test('ip() reads an address and its family, kind and canonical form as netip does', () => {
  assertAllTrue([
    "ip('127.0.0.1').family() == 4 && ip('::1').family() == 6",
    "ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified() && !ip('::1').isUnspecified()",
    "ip('127.3.2.1').isLoopback() && ip('::1').isLoopback() && !ip('192.168.0.1').isLoopback()",
    "ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast()",
    "ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() && !ip('fd80::1').isLinkLocalUnicast()",
    "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()",
    "string(ip('2001:DB8:0:0:0::ABCD')) == '2001:db8::abcd' && ip('2001:db8::abcd') == ip('2001:DB8::0:abcd')",
    "ip.isCanonical('2001:db8::abcd') && !ip.isCanonical('2001:DB8::ABCD') && !ip.isCanonical('2001:db8::0:0:0:abcd')",
    "string(ip('1:0:0:2:0:0:0:3')) == '1:0:0:2::3' && string(ip('::ffff:0:1.2.3.4')) == '::ffff:0:102:304'",
    "isIP('10.0.0.1') && !isIP('10.0.0.01') && !isIP('::ffff:1.2.3.4') && !isIP('fe80::1%eth0')",
  ]);
});

test('ip() refuses what the apiserver refuses, with its messages', () => {
  assertErrors([
    [
      "ip('bogus')",
      'IP Address "bogus" parse error during conversion from string: ParseAddr("bogus"): unable to parse IP',
    ],
    [
      "ip('127.0.0.256')",
      'IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255',
    ],
    ["ip('::ffff:1.2.3.4')", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'],
    ["ip('fe80::1%eth0')", 'IP address "fe80::1%eth0" with zone value is not allowed'],
  ]);
});

test('malformed addresses fail with netip.ParseAddr errors, naming where the parse stopped', () => {
  const parseError = (s: string, detail: string): [string, string] => [
    `ip('${s}')`,
    `IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): ${detail}`,
  ];
  assertErrors([
    parseError('0x7f.0.0.1', 'unexpected character (at "x7f.0.0.1")'),
    parseError('1.2.3.', 'IPv4 field must have at least one digit (at ".")'),
    parseError('01.2.3.4', 'IPv4 field has octet with leading zero'),
    parseError('1::2::3', 'multiple :: in address (at ":3")'),
    parseError('1:2:3:4:5:6:7:8:9', 'trailing garbage after address (at "9")'),
    parseError('1:2:3:4:5:6:7:8:', 'colon must be followed by more characters (at ":")'),
    parseError('1:2:3:4:5:6:7', 'address string too short'),
    parseError('1:2:3:4:5:6:7:8::', 'the :: must expand to at least one field of zeros'),
    parseError('12345::', 'each group must have 4 or less digits (at "12345::")'),
    parseError('1:2:3:4:5:6:7.8.9.10:11', 'unexpected character (at ":11")'),
    parseError(
      '1:2:3:4:5:6:7:1.2.3.4',
      'embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")',
    ),
  ]);
});
