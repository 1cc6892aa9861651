// `node --import` this module: the process runs with V8's tiering for a short run (tiering.mjs).
import { useShortRunTiering } from './tiering.mjs';

useShortRunTiering();
