/** Requests to either cluster, as raw as a client sends them: the answer's status, headers and body. */
import { Agent, request } from 'node:https';
import type { Side } from './clusters';

export interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  /** The body as text; watch answers keep one event per line. */
  text: string;
}

const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });

export interface Request {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** For watches: stop reading after this many events (the rest of the stream is not awaited). */
  events?: number;
  /** Give up waiting after this long; a watch then answers what it read so far. */
  timeoutMs?: number;
}

export function send(side: Side, req: Request): Promise<Answer> {
  const timeoutMs = req.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const r = request(
      `${side.server}${req.path}`,
      {
        method: req.method,
        agent: req.events !== undefined ? false : agent,
        rejectUnauthorized: false,
        headers: {
          Authorization: `Bearer ${side.token}`,
          ...(req.body !== undefined
            ? {
                'Content-Type': 'application/json',
                'Content-Length': String(Buffer.byteLength(req.body)),
              }
            : {}),
          ...req.headers,
        },
      },
      (res) => {
        let text = '';
        const headers: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(res.headers))
          headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const done = () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers, text });
        };
        const timer = setTimeout(() => {
          res.destroy();
          done();
        }, timeoutMs);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          // Only whole lines count: kube-apiserver may split one event across chunks, and a
          // line without its newline yet is an event still arriving.
          if (req.events !== undefined && completeLines(text) >= req.events) {
            // One chunk may carry more events than asked for; the step compares that many.
            text = firstLines(text, req.events);
            res.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('close', done);
      },
    );
    r.on('error', reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/** How many non-empty lines of `text` have their terminating newline. */
function completeLines(text: string): number {
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  return whole.split('\n').filter((l) => l.trim()).length;
}

/** The first `n` non-empty lines of `text`, each with its newline. */
function firstLines(text: string, n: number): string {
  return (
    text
      .split('\n')
      .filter((l) => l.trim())
      .slice(0, n)
      .join('\n') + '\n'
  );
}
