// Replaced at bundle time by esbuild's `define`; the fallback serves tests run from source.
declare const __RS_VERSION__: string | undefined;
export const VERSION: string = typeof __RS_VERSION__ === 'string' ? __RS_VERSION__ : '0.0.0-dev';
