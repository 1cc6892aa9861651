// Setup file of every project: the tests run the sandbox's modules in this process, on Node, so the
// test run is a composition root like sandbox/main.ts and installs Node's platform
// (sandbox/app/platform.ts) before any test file runs.
import { installPlatform } from '../../sandbox/app/platform.js';
import { nodePlatform } from '../../sandbox/platform/node.js';

installPlatform(nodePlatform);
