export function buildPodhash(release?: string): string;
