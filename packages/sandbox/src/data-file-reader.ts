// How a data file given by its path is read: Node's reader (sandbox/cli/data-file.ts), which the
// package's Node entry installs; a page has no files, and takes a data file as an object. Kept out of
// admin.ts, whose declarations a consumer's compile reads: this slot's types are the repository's.
import type { DataFileSource } from '../../../sandbox/cli/data-findings.js';

let reader: ((path: string) => DataFileSource) | undefined;

/** Makes `read` the one a data file's path is read with (the Node entry, once). */
export function installDataFileReader(read: (path: string) => DataFileSource): void {
  reader = read;
}

/** The reader installed, if any. */
export function dataFileReader(): ((path: string) => DataFileSource) | undefined {
  return reader;
}
