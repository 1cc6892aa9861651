import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  bundleForNode,
  copyContract,
  emitDeclarations,
  REQUIRE_BANNER,
  startBuild,
} from '../../tooling/package-build.mjs';

const { packageDir, root, dist, manifest } = startBuild(import.meta.url);
await bundleForNode(manifest, {
  entryPoints: { cli: join(packageDir, 'src/cli.ts'), index: join(packageDir, 'src/index.ts') },
  outdir: dist,
  // The YAML parser is CommonJS.
  banner: { js: REQUIRE_BANNER },
});
copyContract(dist);
mkdirSync(join(dist, 'arazzo'));
for (const file of readdirSync(join(root, 'arazzo')).filter((f) => f.endsWith('.yaml')))
  copyFileSync(join(root, 'arazzo', file), join(dist, 'arazzo', file));

// The public API's declarations only: the rest describes internals a consumer never imports.
emitDeclarations({ packageDir, dist, publicFiles: ['index.d.ts', 'types.d.ts', 'reports.d.ts'] });
