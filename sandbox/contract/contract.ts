// The merchant contract as the sandbox runs it: the bundle (generated/openapi.json) prepared as an
// API document, the tables the domain needs from it (response codes, simulation codes), and its
// examples. Built from the bundle as an object: a Node process reads it from its file
// (platform/documents.ts), a browser page bundles it.
import type { OperationId } from '../../generated/operations.js';
import { isObject, type JsonObject, type OpenAPI3 } from '../../tooling/openapi/walker.js';
import { codeTables, type DomainContext, type ResponseCode, type SimulationCode } from '../domain/context.js';
import { type ApiDocument, createApiDocument, type OperationContract } from './api-document.js';
import { type ContractExamples, contractExamples } from './examples.js';

/** The contract's response and simulation codes, as the domain reads them. */
export type ContractTables = Pick<DomainContext, 'codes' | 'simulations'>;

export interface Contract extends ApiDocument<OperationId> {
  tables: ContractTables;
  /** The contract's examples (the objects a merchant's seeded data holds, under their own ids). */
  examples: ContractExamples;
}

/** An operation of the merchant contract. */
export type ContractOperation<Id extends OperationId = OperationId> = OperationContract<Id>;

/** The contract of `document` (the bundle), every operation prepared. */
export function createContract(document: OpenAPI3 & JsonObject): Contract {
  return {
    ...createApiDocument<OperationId>(document),
    tables: readTables(document),
    examples: contractExamples(document),
  };
}

/** `x-response-codes` (on ResultCode) and `x-simulation-codes` (on SimulationMode), checked. */
function readTables(document: JsonObject): ContractTables {
  const schemas =
    isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {};
  const resultCode = schemas.ResultCode;
  const simulationMode = schemas.SimulationMode;
  const table = (schema: unknown, extension: string) =>
    isObject(schema) && isObject(schema[extension]) ? (schema[extension] as JsonObject).codes : undefined;
  const responseCodes = table(resultCode, 'x-response-codes') as Record<string, ResponseCode> | undefined;
  const simulationCodes = table(simulationMode, 'x-simulation-codes') as SimulationCode[] | undefined;
  if (!responseCodes || !simulationCodes)
    throw new Error('the contract lacks x-response-codes (ResultCode) or x-simulation-codes (SimulationMode)');
  const listed = isObject(simulationMode) && Array.isArray(simulationMode.enum) ? simulationMode.enum : [];
  const tabled = simulationCodes.map((s) => s.simulationMode);
  if (listed.length !== tabled.length || tabled.some((mode) => !listed.includes(mode)))
    throw new Error(
      `SimulationMode's enum (${listed.join(', ')}) differs from its x-simulation-codes (${tabled.join(', ')})`,
    );
  return codeTables(responseCodes, simulationCodes);
}
