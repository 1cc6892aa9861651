// npm pack / npm publish: the package's README is package/README.md (written for the SDK's users),
// while the repository's README.md stays the contributors' front door. npm always takes the README
// of the package root, so `prepack` puts the package README there (`use`) and `postpack` puts the
// repository's back (`restore`). The repository README waits in .README.repository.md meanwhile;
// `use` never overwrites it, so an interrupted pack loses nothing and the next `restore` repairs it.
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../generator/support/paths.js';

const README = join(REPO_ROOT, 'README.md');
const PACKAGE_README = join(REPO_ROOT, 'package', 'README.md');
const REPOSITORY_README = join(REPO_ROOT, '.README.repository.md');

const command = process.argv[2];
if (command === 'use') {
  if (!existsSync(REPOSITORY_README)) renameSync(README, REPOSITORY_README);
  copyFileSync(PACKAGE_README, README);
} else if (command === 'restore') {
  if (existsSync(REPOSITORY_README)) renameSync(REPOSITORY_README, README);
} else {
  console.error('usage: tsx scripts/pack-readme.ts use|restore');
  process.exit(2);
}
