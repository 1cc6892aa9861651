// A data file's faults as a client shows them: the sandbox names each field by its JSON pointer in
// the request body (`/data/payments/2/refunded`); a file read from disk (data-file.ts) turns the
// pointer into `data.yaml:31:7 /payments/2/refunded: message`, a file given as an object keeps the
// pointer alone. No file system here: a browser page's client uses it too.

/** Where the data file is in an admin request's body: its findings' pointers start with it. */
export const DATA_IN_BODY = '/data';

/** A data file that could not be read or parsed, with one line per fault (`file:line:column message`). */
export class DataFileError extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
    this.name = 'DataFileError';
  }
}

/** A data file read from disk: its content, and where each of its fields is. */
export interface DataFileSource {
  path: string;
  data: unknown;
  /** The line and column (1-based) of the field a pointer into the file names, or of its nearest ancestor. */
  positionOf(pointer: string): { line: number; column: number };
}

/**
 * A problem's findings on a data file, one line per message: `file:line:column field: message` when
 * the file was read from disk, `field: message` for a data object (the fields are pointers into the
 * file; findings about other fields of the body keep their names); undefined when the problem names
 * no field of a data file.
 */
export function dataFileFindings(
  errors: Record<string, string[]> | undefined,
  source: DataFileSource | undefined,
): string[] | undefined {
  const inFile = (field: string) => field === DATA_IN_BODY || field.startsWith(`${DATA_IN_BODY}/`);
  if (!errors || !Object.keys(errors).some(inFile)) return undefined;
  return Object.entries(errors).flatMap(([field, messages]) => {
    if (!inFile(field)) return messages.map((message) => `${field}: ${message}`);
    const pointer = field.slice(DATA_IN_BODY.length);
    const named = pointer || '(the file)';
    const position = source?.positionOf(pointer);
    const where = source && position ? `${source.path}:${position.line}:${position.column} ${named}` : named;
    return messages.map((message) => `${where}: ${message}`);
  });
}
