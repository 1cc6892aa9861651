// What an editor shows on hover over a resource method: TypeScript's language service (the one
// VS Code and other editors run) on a small program using the client, as a merchant's code would.
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const FILE = join(ROOT, 'test', '__hover__.ts');
const SOURCE = `import { createPaymentClient } from '../src/client/index.js';
const client = createPaymentClient({ merchantId: 'acme', apiKey: 'key' });
void client.payments.capture;
void client.paymentPlans.listAll;
export async function shop() {
  const payment = await client.payments.retrieve('pay-1');
  const plans = await client.paymentPlans.list();
  return { payment, plans };
}
`;

/** One language service over the program: each hover asks it, as an editor's does (the program is built once). */
function languageService(): ts.LanguageService {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
  };
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => [FILE],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      const text = name === FILE ? SOURCE : ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => ROOT,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (name) => name === FILE || ts.sys.fileExists(name),
    readFile: (name) => (name === FILE ? SOURCE : ts.sys.readFile(name)),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

let service: ts.LanguageService | undefined;

function quickInfo(word: string): { signature: string; documentation: string; tags: string } {
  service ??= languageService();
  const info = service.getQuickInfoAtPosition(FILE, SOURCE.indexOf(word) + 1);
  if (!info) throw new Error(`no quick info for ${word}`);
  return {
    signature: ts.displayPartsToString(info.displayParts),
    documentation: ts.displayPartsToString(info.documentation),
    tags: (info.tags ?? []).map((t) => `@${t.name} ${ts.displayPartsToString(t.text)}`).join('\n'),
  };
}

describe('hover over a resource method', () => {
  it('shows client.payments.capture with named parameters, its summary, description, errors and link', () => {
    const hover = quickInfo('capture;');
    expect(hover.signature).toBe(
      '(method) PaymentsResource.capture(id: string, body: CaptureRequest, options?: CallOptions): Promise<OperationResult>',
    );
    expect(hover.documentation).toMatch(/^Capture a payment\n\nInferred: request and response bodies are not shown/);
    expect(hover.documentation).toContain('`POST /payments/{id}/captures`');
    expect(hover.tags).toContain('@param id - The `payId` of the payment.');
    expect(hover.tags).toContain('@throws {PaymentDeclinedError} 422: Operation declined or rejected.');
    expect(hover.tags).toContain(
      '@see {@link https://developer.payment-service.example/docs/api-v2/#/payments/capturepayment Capture a payment in the API reference}',
    );
  });

  it('names the response schema of a result, not its expanded intersection', () => {
    expect(quickInfo('payment =').signature).toBe('const payment: PaymentDetails');
    expect(quickInfo('plans =').signature).toBe('const plans: PaymentPlanPage');
  });

  it('shows the page walkers too', () => {
    const hover = quickInfo('listAll;');
    expect(hover.signature).toMatch(
      /^\(method\) PaymentPlansResource\.listAll\(filter\?: ListFilter<"listPaymentPlans">, options\?: CallOptions\): AsyncGenerator</,
    );
    expect(hover.documentation).toMatch(/^List payment plans: every item of every page, as you iterate\./);
  });
});
