// The enhanced notification's signature, checked as the contract describes it (the description of
// its signature header parameter): `t=<unix seconds>,v1=<hex HMAC-SHA256>`, the HMAC keyed with the
// webhook secret over `<t>.<raw body>`; any `v1` may match (one per active secret during a
// rotation); a timestamp further than the stated tolerance from now is refused. Written here from
// that description, not taken from any server's or SDK's code.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignatureVerdict {
  problems: string[];
  timestamp?: number;
}

/** The tolerance the description states (`more than 300 seconds`), in seconds. */
export function toleranceOf(description: string): number | undefined {
  const found = /(\d+)\s*seconds/.exec(description)?.[1];
  return found === undefined ? undefined : Number(found);
}

export function checkSignature(
  header: string | undefined,
  body: string,
  secret: string,
  toleranceSeconds: number,
  now = Date.now(),
): SignatureVerdict {
  if (!header) return { problems: ['no signature header'] };
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const signatures = parts.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (!t || !/^\d+$/.test(t) || signatures.length === 0)
    return { problems: [`a signature header not of the form t=…,v1=…: ${header}`] };
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const matches = signatures.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  const timestamp = Number(t);
  const skew = Math.abs(now / 1000 - timestamp);
  return {
    timestamp,
    problems: [
      ...(matches ? [] : ['no v1 signature matches the HMAC-SHA256 of "<t>.<raw body>" with the webhook secret']),
      ...(skew > toleranceSeconds
        ? [`the timestamp is ${Math.round(skew)} s from now, more than ${toleranceSeconds} s`]
        : []),
    ],
  };
}
