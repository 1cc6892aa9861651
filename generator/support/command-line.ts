import { type ParseArgsConfig, parseArgs } from 'node:util';

/**
 * A command's options, parsed strictly: a mistake prints the parser's message and the usage and
 * exits 2; `--help` (when the command declares it) prints the usage and exits 0.
 */
export function commandOptions<T extends ParseArgsConfig>(
  config: T,
  usage: string,
): ReturnType<typeof parseArgs<T>>['values'] {
  let values: ReturnType<typeof parseArgs<T>>['values'];
  try {
    values = parseArgs(config).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${usage}`);
    process.exit(2);
  }
  if ((values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return values;
}
