/** A bare HTTPS client for the proxy tests: one request, its code, headers and body. */
import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

export interface Answer {
  code: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export function call(
  base: { url: string; caPem: string },
  token: string,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload =
      opts.body === undefined
        ? undefined
        : Buffer.isBuffer(opts.body)
          ? opts.body
          : Buffer.from(JSON.stringify(opts.body));
    const r = request(
      `${base.url}${path}`,
      {
        method,
        ca: base.caPem,
        headers: {
          authorization: `Bearer ${token}`,
          'user-agent': 'proxy-test/v0.0.0',
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ code: res.statusCode ?? 0, headers: res.headers, body, text: body.toString() });
        });
      },
    );
    r.on('error', reject);
    r.end(payload);
  });
}

/** Waits until `check` holds (audit events are recorded as the response closes, just after). */
export async function until<T>(get: () => T, check: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = get();
    if (check(v)) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
