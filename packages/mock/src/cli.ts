#!/usr/bin/env node
// payment-mock: the Prism mock of the Payment Service API v2 contract this package carries, with the
// options of the repository's `npm run mock` (one implementation: mock/command.ts), plus `--port 0`
// for a free port, whose address the first line of output names.
import { runMockCommand } from '../../../mock/command.js';
import { CONTRACT_PATH } from './contract.js';

await runMockCommand({
  command: 'payment-mock',
  argv: process.argv.slice(2),
  specPath: CONTRACT_PATH,
  shown: '@payment-service/mock',
});
