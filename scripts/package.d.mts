export const vsixPath: string;
