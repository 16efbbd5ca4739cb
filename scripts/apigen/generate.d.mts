export const generatedDir: string;
export const typesFile: string;
export function buildApigen(release?: string): string;
export function generateApiTypes(release?: string): unknown;
export function ensureApiTypes(): boolean;
