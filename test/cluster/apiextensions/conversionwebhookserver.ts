/**
 * A real HTTPS CRD conversion webhook for the tests: its own CA (the caBundle a CRD names), one
 * handler per path answering the whole ConversionReview, and every request it was sent, in order.
 * `renameConversion` is a well-behaved webhook between two versions that name one field
 * differently (v1 `spec.host`, v2 `spec.hostname`), as a multi-version operator's is.
 */
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { generateServingCerts } from '../../../src/cluster/auth/certs';

type Obj = Record<string, unknown>;

export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: Obj[];
}

/** Answers one ConversionReview request with the review to send back (any JSON at all). */
export type ConversionHandler = (request: ConversionRequest) => unknown;

export interface ConversionWebhookServer {
  url: string;
  port: number;
  caBundle: string;
  received: Array<{ path: string; request: ConversionRequest }>;
  handle(path: string, h: ConversionHandler): void;
  close(): Promise<void>;
}

export async function startConversionWebhook(
  dnsNames: string[] = [],
  port = 0,
): Promise<ConversionWebhookServer> {
  const certs = await generateServingCerts(dnsNames);
  const handlers = new Map<string, ConversionHandler>();
  const received: ConversionWebhookServer['received'] = [];
  const server: Server = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString()) as { request: ConversionRequest };
      received.push({ path, request: review.request });
      const answer = (handlers.get(path) ?? renameConversion)(review.request);
      if (typeof answer === 'string') {
        res.statusCode = 200;
        res.end(answer);
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${bound}`,
    port: bound,
    caBundle: Buffer.from(certs.caPem).toString('base64'),
    received,
    handle: (path, h) => handlers.set(path, h),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A successful ConversionReview v1 answer carrying `objects`. */
export function converted(request: ConversionRequest, objects: unknown[]): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    response: { uid: request.uid, convertedObjects: objects, result: { status: 'Success' } },
  };
}

/** One object converted between v1 (`spec.host`) and v2 (`spec.hostname`) of its group. */
export function renameField(o: Obj, desiredAPIVersion: string): Obj {
  const c = structuredClone(o);
  const spec = (c.spec ?? {}) as Obj;
  const to = desiredAPIVersion.split('/')[1];
  if (to === 'v2' && 'host' in spec) {
    spec.hostname = spec.host;
    delete spec.host;
  } else if (to === 'v1' && 'hostname' in spec) {
    spec.host = spec.hostname;
    delete spec.hostname;
  }
  c.apiVersion = desiredAPIVersion;
  return c;
}

export const renameConversion: ConversionHandler = (request) =>
  converted(
    request,
    request.objects.map((o) => renameField(o, request.desiredAPIVersion)),
  );
