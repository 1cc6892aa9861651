// The `listAll…` companions of paged list operations: every item of every page, page after page.
import type { OperationPlan } from './plan.js';

/** Walks the pages of `plan`'s list from page 1, stopping on an empty page or past the page count. */
export async function* walkPages(
  execute: (plan: OperationPlan, args: readonly unknown[]) => Promise<unknown>,
  plan: OperationPlan,
  args: readonly unknown[],
): AsyncGenerator<unknown, void, undefined> {
  const { pageParam, itemsField, totalPagesField } = plan.info.pagination!;
  const pathCount = plan.info.pathParams.length;
  const [filter, callOptions] = args.slice(pathCount) as [Record<string, unknown> | undefined, unknown];
  for (let page = 1; ; page++) {
    const result = (await execute(plan, [
      ...args.slice(0, pathCount),
      { ...filter, [pageParam]: page },
      callOptions,
    ])) as Record<string, unknown> | undefined;
    const items = result?.[itemsField];
    if (!Array.isArray(items) || items.length === 0) return;
    yield* items;
    const totalPages = result![totalPagesField];
    // Without a page count, walk on until an empty page.
    if (typeof totalPages === 'number' && page >= totalPages) return;
  }
}
