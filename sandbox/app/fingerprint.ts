// The keyed hash of card numbers and IBANs: the same card is the same pseudo number, and the
// database never holds a number it could be read back from without the key.
import { createHmac } from 'node:crypto';
import type { Store } from '../store/store.js';
import { newId } from './ids.js';

/** The hash with the installation's key, shared through the store by every process on the database. */
export async function sandboxFingerprint(store: Store): Promise<(text: string) => string> {
  const pseudoKey = await store.setting('pseudo-number-key', () => newId('operation') + newId('operation'));
  return (text) => createHmac('sha256', pseudoKey).update(text).digest('hex');
}
