// What a house rule is: a Spectral function run once on the whole, UNRESOLVED bundle
// (`given: $`, `resolved: false` in .spectral.yaml), so that each object is reported where it
// lives, not once per `$ref` that uses it.
import type { IFunctionResult } from '@stoplight/spectral-core';
import type { JsonObject } from '../../../tooling/openapi/walker.js';

/** A Spectral function result that always says where (Spectral's own type leaves `path` optional). */
export type HouseRuleResult = IFunctionResult & Required<Pick<IFunctionResult, 'path'>>;

export type HouseRule = (document: JsonObject) => HouseRuleResult[];
