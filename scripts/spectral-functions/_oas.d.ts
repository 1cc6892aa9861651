// Types for _oas.js, which generator/provenance.ts reuses (Spectral itself only loads the .js).
export type Path = (string | number)[];
export declare const HTTP_METHODS: string[];
export declare function isObj(v: unknown): v is Record<string, any>;
export declare function getPointer(root: unknown, ref: string): unknown;
export declare function deref(root: unknown, node: unknown, path: Path): { node: any; path: Path };
export declare function operations(root: unknown): Generator<{ operation: Record<string, any>; path: Path; pathItem: Record<string, any> }>;
export declare function walkSchemas(root: unknown, visit: (schema: Record<string, any>, path: Path, parent?: Record<string, any>) => void): void;
export declare function typesOf(schema: unknown): string[];
