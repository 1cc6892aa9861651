// The docs console's Scalar bundle is vendored (vendor/scalar/: the file, source.json, LICENSE)
// rather than installed with @scalar/api-reference and its hundreds of dependencies. Here the
// vendored file is held to the release source.json names: the registry's document of that version
// publishes the integrity source.json records, the tarball matches it, and the file inside the
// tarball is the vendored file, byte for byte. The generator refuses a file that does not match the
// record, naming it.
//
// The registry check needs the npm registry (as `npm ci` does): offline it fails, saying so, rather
// than passing without having checked. The verified tarball is kept in node_modules/.cache/vendor/.
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCALAR_VENDOR_DIR, scalarBundle, scalarRelease } from '../../generator/steps/docs-console.js';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { cacheFolder, matchesIntegrity, publishedRelease, tarEntry, verifiedTarball } from '../support/npm-registry.js';

const VENDORED_FILE = join(SCALAR_VENDOR_DIR, 'standalone.js');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('the vendored Scalar bundle is the release source.json names', () => {
  it('the registry publishes the recorded integrity, and the tarball holds the vendored file', async () => {
    const release = await scalarRelease();
    const published = await publishedRelease(release.package, release.version);
    expect(published.integrity, `${release.package} ${release.version}: dist.integrity`).toBe(release.integrity);

    const tgz = await verifiedTarball(published, cacheFolder(REPO_ROOT, 'vendor'));
    const file = tarEntry(tgz, `package/${release.file}`);
    expect(sha256(file), `package/${release.file} of ${release.package} ${release.version}`).toBe(release.sha256);
    expect(file.equals(await readFile(VENDORED_FILE)), 'vendor/scalar/standalone.js equals the release file').toBe(
      true,
    );

    const manifest = JSON.parse(tarEntry(tgz, 'package/package.json').toString('utf8')) as Record<string, unknown>;
    expect({ name: manifest.name, version: manifest.version, license: manifest.license }).toEqual({
      name: release.package,
      version: release.version,
      license: release.license,
    });
  }, 120_000);

  it('the licence text beside the file is the MIT licence source.json names, with Scalar as its holder', async () => {
    const licence = await readFile(join(SCALAR_VENDOR_DIR, 'LICENSE'), 'utf8');
    expect((await scalarRelease()).license).toBe('MIT');
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) .* Scalar\n/);
    expect(licence).toContain('Permission is hereby granted, free of charge');
  });
});

describe('the generator takes the vendored file only as recorded', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vendored-scalar-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the vendored file when its sha256 is the recorded one', async () => {
    const bundle = await scalarBundle();
    expect(sha256(Buffer.from(bundle, 'utf8'))).toBe((await scalarRelease()).sha256);
  });

  it('refuses a changed file, naming it and both digests', async () => {
    await copyFile(join(SCALAR_VENDOR_DIR, 'source.json'), join(dir, 'source.json'));
    const changed = Buffer.concat([await readFile(VENDORED_FILE), Buffer.from('\n')]);
    await writeFile(join(dir, 'standalone.js'), changed);
    const { sha256: recorded } = await scalarRelease();
    await expect(scalarBundle(dir)).rejects.toThrow(
      new RegExp(
        `standalone\\.js: sha256 ${sha256(changed)} is not the .* file that source\\.json records \\(${recorded}\\)`,
      ),
    );
  });

  it('refuses a record without a field, naming the file and the field', async () => {
    const record = JSON.parse(await readFile(join(SCALAR_VENDOR_DIR, 'source.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    delete record.integrity;
    await writeFile(join(dir, 'source.json'), JSON.stringify(record));
    await expect(scalarRelease(dir)).rejects.toThrow(/source\.json: "integrity" must be a non-empty string/);
    await writeFile(join(dir, 'source.json'), '{ "package": ');
    await expect(scalarRelease(dir)).rejects.toThrow(/source\.json: .*JSON/);
  });
});

describe('the registry helpers', () => {
  it('integrity: the digest must match, under the algorithm the SRI string names', () => {
    const bytes = Buffer.from('payment');
    const sri = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
    expect(matchesIntegrity(bytes, sri)).toBe(true);
    expect(matchesIntegrity(Buffer.from('payments'), sri)).toBe(false);
    expect(matchesIntegrity(bytes, `sha1-${createHash('sha1').update(bytes).digest('base64')}`)).toBe(false);
  });
});
