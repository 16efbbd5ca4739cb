export const openapiv2pbSource: string;
export function buildOpenapiv2pb(release?: string): string;
export function openapiV2Protobuf(json: string, release?: string): Buffer;
export function openapiV2Fields(
  release?: string,
): Record<string, Record<string, [number, string, string]>>;
