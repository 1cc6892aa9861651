// Type tests of the success responses, compiled by `tsc -p test/sdk/types` (test/sdk/types.test.ts):
// what the service always returns is not optional, and open sets complete their known values while
// any other string still type-checks. Every `@ts-expect-error` must meet an error. Nothing here runs.

import type { PaymentDetails, PaymentPlanListItem, PaymentPlanPage } from '../../../generated/types.js';
import type { KnownValue, PaymentClient, SuccessBody } from '../../../src/client/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
declare function expectType<T extends true>(): void;

declare const client: PaymentClient;
const amount = { value: 2_500, currency: 'USD' };

export async function alwaysThere(): Promise<void> {
  const created = await client.payments.create({ transId: 'SHOP-42', amount });
  // payId of a 201 is a string, not `string | undefined`: no `!` needed
  expectType<Equal<typeof created.payId, string>>();
  expectType<Equal<SuccessBody<'createPayment'>['payId'], string>>();
  const captured = await client.payments.capture(created.payId, { transId: 'SHOP-42-C1', amount });
  expectType<Equal<typeof captured.xId, string>>();
  expectType<Equal<typeof captured.responseCode, string>>();
  // what the document does not promise stays optional
  expectType<Equal<typeof captured.refNr, string | undefined>>();

  const payment = await client.payments.retrieve(created.payId);
  expectType<Equal<typeof payment.capturedAmount.value, number>>();
  expectType<Equal<(typeof payment.operations)[number]['xId'], string>>();

  const page: PaymentPlanPage = await client.paymentPlans.list();
  expectType<Equal<typeof page.data, PaymentPlanListItem[]>>();
  expectType<Equal<typeof page.totalNumberOfPages, number>>();

  const token = await client.authorization.createToken({ grant_type: 'client_credentials' });
  expectType<Equal<typeof token.expires_in, number>>();
}

type State = PaymentDetails['state'];

/** Every known state has its case: the `never` check in `default` compiles. */
export function describeState(payment: PaymentDetails): string {
  const state = payment.state;
  switch (state) {
    case 'PENDING':
    case 'PENDING_CONFIRMATION':
      return 'waiting';
    case 'AUTHORIZED':
    case 'PARTIALLY_CAPTURED':
    case 'CAPTURED':
      return 'paid';
    case 'PARTIALLY_REFUNDED':
    case 'REFUNDED':
    case 'REVERSED':
      return 'given back';
    case 'FAILED':
      return 'failed';
    default: {
      const missed: never = state as KnownValue<typeof state>;
      // a state added after this SDK was built is still a string
      return `unknown (${state satisfies string}) ${String(missed)}`;
    }
  }
}

/** A known state without its case: the same check fails. */
export function forgetsOne(state: State): string {
  switch (state) {
    case 'PENDING':
    case 'PENDING_CONFIRMATION':
    case 'AUTHORIZED':
    case 'PARTIALLY_CAPTURED':
    case 'CAPTURED':
    case 'PARTIALLY_REFUNDED':
    case 'REFUNDED':
    case 'FAILED':
      return 'known';
    default: {
      // @ts-expect-error REVERSED has no case
      const missed: never = state as KnownValue<typeof state>;
      return String(missed);
    }
  }
}

export function openSets(payment: PaymentDetails): void {
  // the known values are literals (editors complete them) ...
  expectType<
    Equal<
      KnownValue<State>,
      | 'PENDING'
      | 'PENDING_CONFIRMATION'
      | 'AUTHORIZED'
      | 'PARTIALLY_CAPTURED'
      | 'CAPTURED'
      | 'PARTIALLY_REFUNDED'
      | 'REFUNDED'
      | 'REVERSED'
      | 'FAILED'
    >
  >();
  expectType<Equal<KnownValue<PaymentDetails['status']>, 'OK' | 'FAILED'>>();
  expectType<
    Equal<
      KnownValue<Exclude<PaymentDetails['paymentMethodType'], undefined>>,
      | 'APPLEPAY'
      | 'BANCONTACT'
      | 'BOLETO'
      | 'CARD'
      | 'DIRECTDEBIT'
      | 'GOOGLEPAY'
      | 'IDEAL'
      | 'KLARNA'
      | 'PAYPAL'
      | 'PAYU'
      | 'WERO'
    >
  >();
  // ... and any other string is still one of them: values the service adds later type-check
  const later: State = 'SETTLED_ELSEWHERE';
  const asText: string = payment.state;
  // but not any other type
  // @ts-expect-error a state is a string
  const wrong: State = 42;
  void [later, asText, wrong];
}
