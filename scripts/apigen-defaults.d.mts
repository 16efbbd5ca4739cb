export function buildDefaulting(release?: string): string;
export function generate(release: string): unknown;
