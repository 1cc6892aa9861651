// A transaction's `expirationTime` (a payment, a checkout session, a payment link, a payment intent,
// a payment's update) must lie in the future when the request arrives: the contract's rule, read on
// the scope's clock (the test clock of the merchant and root).

/** Why `expirationTime` cannot be accepted at `now` (it is not after it), or undefined when it can (or is absent). */
export function expirationProblem(expirationTime: string | undefined, now: Date): string | undefined {
  if (expirationTime === undefined) return undefined;
  const at = Date.parse(expirationTime);
  if (Number.isNaN(at) || at > now.getTime()) return undefined;
  return `has passed: it must lie in the future (the time now is ${now.toISOString()})`;
}
