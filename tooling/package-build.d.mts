import type { BuildOptions, BuildResult } from 'esbuild';

/** A package's manifest, as much of it as a build reads. */
export interface PackageManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
/** A package's build begins: its folder, the repository's root, its manifest and its `dist/`, emptied. */
export function startBuild(buildScriptUrl: string): {
  packageDir: string;
  root: string;
  dist: string;
  manifest: PackageManifest;
};
/** For a CommonJS dependency bundled into an ES module: the `require()` it calls. */
export const REQUIRE_BANNER: string;
/** esbuild for Node with the house settings, the manifest's dependencies and peer dependencies left external. */
export function bundleForNode(manifest: PackageManifest, options: BuildOptions): Promise<BuildResult>;
/** esbuild for a browser page (ES2022) with the house settings. */
export function bundleForBrowser(options: BuildOptions): Promise<BuildResult>;
/** The contract as the repository bundled it, beside the package's code. */
export function copyContract(dist: string): void;
/** The declarations of a package's public API, each made from its source alone (isolated declarations); exits the build when a source leaves a type to inference. */
export function emitDeclarations(options: { packageDir: string; dist: string; publicFiles: string[] }): void;
