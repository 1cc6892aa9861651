// Node's Buffer in a browser page (the browser build injects it): the sandbox encodes ids, keys and
// digests as hex, base64 and base64url through it. The `buffer` package predates base64url (Node
// 15.7), so it is taught that one encoding here, as base64 with the URL-safe alphabet and no padding.
import { Buffer } from 'buffer';

type Encoding = Parameters<typeof Buffer.prototype.toString>[0];
const toBase64 = (text: string) => text.replace(/-/g, '+').replace(/_/g, '/');
const toBase64Url = (text: string) => text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

const encode = Buffer.prototype.toString;
Buffer.prototype.toString = function (this: Buffer, encoding?: Encoding | 'base64url', start?: number, end?: number) {
  return encoding === 'base64url'
    ? toBase64Url(encode.call(this, 'base64', start, end))
    : encode.call(this, encoding as Encoding, start, end);
};

const from = Buffer.from as (...args: unknown[]) => Buffer;
Buffer.from = ((value: unknown, encoding?: unknown, length?: unknown) =>
  encoding === 'base64url' && typeof value === 'string'
    ? from(toBase64(value), 'base64')
    : from(value, encoding, length)) as typeof Buffer.from;

const isEncoding = Buffer.isEncoding;
Buffer.isEncoding = (encoding: string): encoding is BufferEncoding => encoding === 'base64url' || isEncoding(encoding);

export { Buffer };
