// Headless Chromium for browser tests, from the npm package @sparticuz/chromium (a Chromium build
// shipped inside the package, unpacked to the temp dir on first use), driven by playwright-core:
// `npm test` needs no system browser and downloads nothing.
import sparticuz from '@sparticuz/chromium';
import type { LaunchOptions } from 'playwright-core';

/**
 * The package's recommended flags, without `--single-process` (with it, Chromium dies when its
 * first browser context closes), plus flags that stop Chromium from calling Google's services,
 * which this machine's closed network refuses.
 */
export async function chromiumLaunchOptions(): Promise<
  Required<Pick<LaunchOptions, 'executablePath' | 'args' | 'headless'>>
> {
  return {
    executablePath: await sparticuz.executablePath(),
    args: [
      ...sparticuz.args.filter((arg) => arg !== '--single-process'),
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    headless: true,
  };
}
