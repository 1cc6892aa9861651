// Headless Chromium for browser tests, from the npm package @sparticuz/chromium (a Chromium build
// shipped inside the package, unpacked to the temp dir on first use), driven by playwright-core:
// `npm test` needs no system browser and downloads nothing.
import sparticuz from '@sparticuz/chromium';
import { type Browser, chromium, type LaunchOptions } from 'playwright-core';
import { backgroundService } from './background.js';

/** Flags of @sparticuz/chromium's defaults that these tests must not run with (see below). */
export const DROPPED_FLAGS: ReadonlySet<string> = new Set(['--single-process', '--disable-web-security']);

/**
 * Flags of @sparticuz/chromium's defaults that composite pages on an emulated GPU (SwiftShader):
 * these tests draw on Chromium's software compositor instead (`--disable-gpu`). The emulation costs
 * far more CPU for the same pages (docs/benchmarks.md), and it makes no surface larger than its
 * largest texture (8192 px on an Intel host): a taller viewport kills the browser, and with it every
 * file sharing it. WebGL, which no page here uses, still has SwiftShader.
 */
const GPU_EMULATION_FLAGS: ReadonlySet<string> = new Set([
  '--ignore-gpu-blocklist',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
]);

/**
 * The package's recommended flags, without `--single-process` (with it, Chromium dies when its
 * first browser context closes) and without `--disable-web-security` (with it, Chromium ignores the
 * same-origin policy and CORS: any page could call any server, and a browser test would pass where
 * a real browser refuses), without the GPU's emulation (above), plus flags that stop Chromium from
 * calling Google's services, which this machine's closed network refuses.
 */
export async function chromiumLaunchOptions(): Promise<
  Required<Pick<LaunchOptions, 'executablePath' | 'args' | 'headless'>>
> {
  return {
    executablePath: await sparticuz.executablePath(),
    args: [
      ...sparticuz.args.filter((arg) => !DROPPED_FLAGS.has(arg) && !GPU_EMULATION_FLAGS.has(arg)),
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    headless: true,
  };
}

/**
 * The run's Chromium (started with these options by services/chromium.ts), connected: `close()`
 * disconnects and closes the contexts this connection opened. Its project lists
 * test/support/services/chromium.ts in its globalSetup.
 */
export async function connectBrowser(): Promise<Browser> {
  return chromium.connect(await backgroundService<string>('chromium'));
}
