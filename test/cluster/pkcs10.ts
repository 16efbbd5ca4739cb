/**
 * PKCS#10 certificate signing requests (RFC 2986) built in the test, so that no test depends on
 * an openssl binary: a P-256 key, a subject CN, no attributes.
 */
import { generateKeyPairSync, sign } from 'node:crypto';

/** A DER length (short or long form). */
function len(n: number): Buffer {
  if (n < 128) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, content: Buffer) =>
  Buffer.concat([Buffer.from([tag]), len(content.length), content]);
const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));

/**
 * A PKCS#10 request signed by a fresh P-256 key, as PEM in base64 (the field's JSON form); with
 * `tamper`, its signature is over other bytes.
 */
export function csrRequest(tamper = false): string {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cn = Buffer.from('builder');
  const subject = seq(tlv(0x31, seq(tlv(0x06, Buffer.from('550403', 'hex')), tlv(0x0c, cn))));
  const info = seq(
    tlv(0x02, Buffer.from([0])),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa0, Buffer.alloc(0)),
  );
  const ecdsaSha256 = seq(tlv(0x06, Buffer.from('2a8648ce3d040302', 'hex')));
  const signature = sign('sha256', tamper ? Buffer.from('other') : info, privateKey);
  const der = seq(info, ecdsaSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const pem = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE REQUEST-----\n`;
  return Buffer.from(pem).toString('base64');
}
