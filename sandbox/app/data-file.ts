// A team's data file (generated/admin/data.schema.json), as the sandbox reads it: customers with saved
// cards, payment plans and payments in given states, as the schema describes them; and the same
// file once checked (data-check.ts), each object with its JSON pointer and its references resolved,
// as data-load.ts makes it.
import type { FieldErrors } from '../contract/field-errors.js';
import type { Step, TargetState } from '../domain/payment-paths.js';
import type { Schemas } from '../domain/types.js';
import type { Amount } from './seeding.js';

export interface DataCard {
  id?: string;
  number: string;
  expiryDate?: string;
  cardHolderName?: string;
}

export type DataCustomer = Schemas['CustomerInfo'] & {
  id?: string;
  merchantCustomerId: string;
  billingAddress?: Schemas['Address'];
  metadata?: Schemas['Metadata'];
  cards?: DataCard[];
};

export interface DataPlan {
  id?: string;
  type: Schemas['PaymentPlanType'];
  customer: string;
  card?: string;
  amount: Amount;
  frequency?: Schemas['PlanFrequency'];
  totalInstallments?: number;
  billed?: number;
  description?: string;
  transId?: string;
}

export interface DataPayment {
  id?: string;
  transId?: string;
  amount: Amount;
  state: TargetState;
  method?: Schemas['PaymentIntentMethodType'];
  customer?: string;
  card?: string;
  captured?: number;
  refunded?: number;
  declinedWith?: Schemas['SimulationMode'];
  metadata?: Schemas['Metadata'];
}

/** A data file as its schema describes it. */
export interface DataFile {
  customers?: DataCustomer[];
  plans?: DataPlan[];
  payments?: DataPayment[];
}

/** Findings by JSON pointer into the file (`/payments/2/refunded`), each with its messages. */
export type DataErrors = FieldErrors;

export interface CheckedCard {
  at: string;
  given: DataCard;
}

export interface CheckedCustomer {
  at: string;
  given: DataCustomer;
  cards: CheckedCard[];
}

export interface CheckedPlan {
  at: string;
  given: DataPlan;
  customer: CheckedCustomer;
  card: CheckedCard;
}

export interface CheckedPayment {
  at: string;
  given: DataPayment;
  customer: CheckedCustomer | undefined;
  card: CheckedCard | undefined;
  /** Its payment method type (the default by state where none is given). */
  method: string;
  /** The transitions after its creation that bring it to its state. */
  steps: Step[];
}

/** A file that passed the check, its references resolved. */
export interface CheckedData {
  customers: CheckedCustomer[];
  plans: CheckedPlan[];
  payments: CheckedPayment[];
}
