// Data files in the admin API (`data` in createMerchant and resetData, and loadData): the checker
// compiled from their schema (generated/admin/data.schema.json, bundled as an object like the
// documents, so that Node and a browser page read it alike; the package publishes the file too),
// and the problems that name each offending field by its JSON pointer in the body.

import DATA_SCHEMA from '../../../generated/admin/data.schema.json' with { type: 'json' };
import { type DataChecker, dataChecker } from '../../app/data-check.js';
import type { CheckedData, DataErrors } from '../../app/data-file.js';
import type { ContractTables } from '../../contract/contract.js';
import { noFieldErrors } from '../../contract/field-errors.js';
import type { Reply } from '../pipeline.js';
import type { AdminRequest } from './types.js';

let checker: DataChecker | undefined;
/** The checker of data files, compiled once per process. */
export const loadDataChecker = (): DataChecker => (checker ??= dataChecker(DATA_SCHEMA));

/** Where the data file is in the request body: the pointers of its findings start with it. */
const IN_BODY = '/data';

/** Findings by pointer into the file, as pointers into the body (`/payments/2` → `/data/payments/2`). */
function inBody(errors: DataErrors): DataErrors {
  const out = noFieldErrors();
  for (const [pointer, messages] of Object.entries(errors)) out[`${IN_BODY}${pointer}`] = messages;
  return out;
}

const fields = (errors: DataErrors) => {
  const n = Object.keys(errors).length;
  return n === 1 ? '1 field' : `${n} fields`;
};

/** The data file of a request checked at `now`, or the 400 that names what is wrong with it. */
export function checkedData(
  r: Pick<AdminRequest, 'problem'>,
  data: object,
  context: { tables: ContractTables; now: Date },
): { file: CheckedData } | { reply: Reply } {
  const checked = loadDataChecker()(data, context);
  if ('data' in checked) return { file: checked.data };
  return {
    reply: r.problem(400, {
      title: 'The data file is invalid.',
      detail: `${fields(checked.errors)} of the data file failed its checks; nothing was written.`,
      errors: inBody(checked.errors),
    }),
  };
}

/** The 409 of a data file whose ids or transIds the scope holds already. */
export const dataConflict = (r: Pick<AdminRequest, 'problem'>, errors: DataErrors): Reply =>
  r.problem(409, {
    title: 'The scope holds data the data file collides with.',
    detail: `The scope holds ids or transIds the data file gives (${fields(errors)}); nothing was written. Reset the scope first, or change the file.`,
    type: 'sandbox/data-conflict',
    errors: inBody(errors),
  });
