#!/usr/bin/env node
// payment-sandbox: the repository's `npm run sandbox`, as a package's command. What differs is only
// what suits a project that installed it: its name in the help, and data in memory unless --db (or
// SANDBOX_DB) names a file or a PostgreSQL URL.
process.env.SANDBOX_PROGRAM ??= 'payment-sandbox';
process.env.SANDBOX_DB ??= ':memory:';
await import('../../../sandbox/main.js');
