/*
 * The shape of every API call's input, checked where a call enters a trusted process: the
 * HTTP transport of `forager serve`, Electron's main process (IPC from the renderer) and the
 * crawler's utility process. Objects are strict (unknown keys are refused), strings and
 * arrays are bounded, so a hostile page in the renderer cannot smuggle options in or make
 * the service allocate without limit.
 */
import { z } from 'zod';
import type { ApiMethod } from '../protocol/api.ts';

const MAX_TEXT = 2_000;
const collection = z.string().min(1).max(200);
const collectionRef = z.strictObject({ collection });
const pageRef = z.strictObject({ collection, seq: z.number().int().min(1) });
const count = (max: number) => z.number().int().min(0).max(max);

const exportFilter = z.strictObject({
  hotOnly: z.boolean().optional(),
  minRelevance: z.number().min(0).max(1).optional(),
  labelledRelevant: z.boolean().optional(),
  text: z.string().max(MAX_TEXT).optional(),
  host: z.string().max(300).optional(),
});

const noInput = z.union([z.undefined(), z.strictObject({})]);

export const INPUT_SCHEMAS = {
  info: noInput,
  listCollections: noInput,
  createCollection: z.strictObject({
    name: z.string().min(1).max(100).optional(),
    query: z.string().min(1).max(MAX_TEXT),
    seeds: z.array(z.string().min(1).max(4096)).min(1).max(1000),
    maxPages: z.number().int().min(1).max(100_000_000).optional(),
    delayMs: count(3_600_000).optional(),
    scope: z.enum(['hosts', 'domains', 'any']).optional(),
    strategy: z.string().min(1).max(40).optional(),
    concurrency: z.number().int().min(1).max(256).optional(),
    maxDepth: z.number().int().min(0).max(1000).optional(),
    hotPredicate: z.string().max(MAX_TEXT).nullable().optional(),
    hotThreshold: z.number().min(0).max(1).nullable().optional(),
    allowPrivate: z.boolean().optional(),
    start: z.boolean().optional(),
  }),
  deleteCollection: collectionRef,
  startCrawl: z.strictObject({ collection, maxPages: z.number().int().min(1).max(100_000_000).optional() }),
  pauseCrawl: collectionRef,
  resumeCrawl: collectionRef,
  stopCrawl: collectionRef,
  crawlStatus: collectionRef,
  frontier: z.strictObject({ collection, limit: z.number().int().min(1).max(500).optional() }),
  listPages: z.strictObject({
    collection,
    sort: z.enum(['relevance', 'time', 'url']).optional(),
    hotOnly: z.boolean().optional(),
    filter: z.string().max(MAX_TEXT).optional(),
    offset: count(100_000_000).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  }),
  searchPages: z.strictObject({ collection, text: z.string().max(MAX_TEXT), limit: z.number().int().min(1).max(500).optional() }),
  getPage: pageRef,
  labelPage: z.strictObject({ collection, seq: z.number().int().min(1), label: z.enum(['relevant', 'irrelevant']).nullable() }),
  exportCollection: z.strictObject({ collection, format: z.enum(['warc', 'wacz', 'jsonl', 'csv', 'mirror']), filter: exportFilter.optional() }),
  runLab: z.strictObject({
    collection,
    strategies: z.array(z.string().min(1).max(40)).min(1).max(20),
    budgets: z.array(z.number().gt(0).max(1)).min(1).max(20),
    hot: z.string().max(MAX_TEXT).optional(),
    judge: z.enum(['truth', 'live']).optional(),
  }),
} satisfies Record<ApiMethod, z.ZodType>;

export const API_METHODS = Object.keys(INPUT_SCHEMAS) as ApiMethod[];

export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && Object.hasOwn(INPUT_SCHEMAS, name);
}

export type CheckedInput = { ok: true; value: unknown } | { ok: false; message: string };

/** Validates one call's input; the message names the offending field in words. */
export function checkInput(method: ApiMethod, input: unknown): CheckedInput {
  const result = INPUT_SCHEMAS[method].safeParse(input);
  if (result.success) return { ok: true, value: result.data ?? {} };
  const issue = result.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? 'input' : issue.path.join('.');
  return { ok: false, message: `${method}: ${where}: ${issue?.message ?? 'invalid'}` };
}
