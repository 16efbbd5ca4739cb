/** Types of build.mjs for the TypeScript that imports it (the differential suite). */
export declare const BINARY_PACKAGES: Record<string, string>;
export declare const BINARIES: string[];
export declare const REALAPI_PACKAGES: string[];
export declare function realapiDir(release?: string): string;
export declare function isBuilt(dir?: string): boolean;
export declare function buildRealapi(release?: string): string;
