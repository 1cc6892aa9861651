// The environment a child process is started with.

/** This process's environment with `changes` applied; a variable given as undefined is left out. */
export function environmentWith(changes: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...changes };
  for (const name of Object.keys(env)) if (env[name] === undefined) delete env[name];
  return env;
}
