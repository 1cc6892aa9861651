import { join } from 'node:path';
import { bundleForNode, copyContract, emitDeclarations, startBuild } from '../../tooling/package-build.mjs';

const { packageDir, dist, manifest } = startBuild(import.meta.url);
await bundleForNode(manifest, {
  entryPoints: { cli: join(packageDir, 'src/cli.ts'), index: join(packageDir, 'src/index.ts') },
  outdir: dist,
});
// The package mocks the contract as the repository bundled it.
copyContract(dist);

// The library's declarations only: the rest describes internals a consumer never imports.
emitDeclarations({ packageDir, dist, publicFiles: ['index.d.ts'] });
