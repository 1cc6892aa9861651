// The process groups a process started (tooling/process/groups.ts): one exit listener while any of
// them runs, none while none does, so that a module loaded once per test project adds none at rest.
import { expect, it } from 'vitest';
import { guardGroup, releaseGroup } from '../../tooling/process/groups.js';

// Process group ids no process has here (above Linux's pid_max): never signalled, only counted.
const GROUPS = [4_194_401, 4_194_402];

it('listens for exit once while groups run, and not at all once they ended', () => {
  const idle = process.listenerCount('exit');
  for (const pgid of GROUPS) guardGroup(pgid);
  expect(process.listenerCount('exit')).toBe(idle + 1);
  releaseGroup(GROUPS[0]!);
  expect(process.listenerCount('exit'), 'one still runs').toBe(idle + 1);
  releaseGroup(GROUPS[1]!);
  expect(process.listenerCount('exit')).toBe(idle);
  releaseGroup(GROUPS[1]!);
  expect(process.listenerCount('exit'), 'a group released twice').toBe(idle);
});
