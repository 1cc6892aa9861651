// CORS probes shared by the mock's and the sandbox's CORS tests: the same rule, asked the same way.

/** A browser's preflight for `method` with `headers` from `origin`. */
export const preflight = (
  base: string,
  path: string,
  origin: string,
  method = 'POST',
  headers = 'authorization,content-type',
) =>
  fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

/** The names of a response's CORS headers. */
export const corsHeaders = (r: Response) => [...r.headers.keys()].filter((h) => h.startsWith('access-control-'));
