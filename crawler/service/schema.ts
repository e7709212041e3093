/*
 * The shape of every API call's input, checked where a call enters a trusted process: the
 * HTTP transport of `forager serve`, Electron's main process (IPC from the renderer) and the
 * crawler's utility process. Objects are strict (unknown keys are refused), strings and
 * arrays are bounded, so a hostile page in the renderer cannot smuggle options in or make
 * the service allocate without limit.
 */
import { z } from 'zod';
import type { ApiErrorBody, ApiMethod, NewCollectionInput } from '../protocol/api.ts';
import { crawlSettingsSchema, NEW_CRAWL_INPUT_BOUNDS as BOUNDS, NEW_CRAWL_SETTINGS, optionalSettingFields, renderModeSchema } from '../protocol/settings.ts';

const MAX_TEXT = 2_000;
const collection = z.string().min(1).max(200);
const collectionRef = z.strictObject({ collection });
const pageRef = z.strictObject({ collection, seq: z.number().int().min(1) });
const count = (max: number) => z.number().int().min(0).max(max);
/** A time as epoch ms, within what a Date can hold. */
const epochMs = z.number().int().min(0).max(8_640_000_000_000_000);
const versionNumber = z.number().int().min(1).max(1_000_000_000);

const exportFilter = z.strictObject({
  hotOnly: z.boolean().optional(),
  minRelevance: z.number().min(0).max(1).optional(),
  labelledRelevant: z.boolean().optional(),
  text: z.string().max(MAX_TEXT).optional(),
  host: z.string().max(300).optional(),
  skipDuplicates: z.boolean().optional(),
});

const noInput = z.union([z.undefined(), z.strictObject({})]);

/**
 * createCollection: the query, the seeds and the settings the New crawl form may set, with the
 * settings schema's types and limits (no defaults: the service fills them in), bounded in size
 * for the transport; `name` and `start` are the service's own.
 */
const settings = crawlSettingsSchema.shape;
/** Include or exclude patterns as the form sends them; what each may be is checked by the crawler (url-rules.ts). */
const urlPatterns = z.array(z.string().max(BOUNDS.patternLength)).max(BOUNDS.patternCount);
const newCollection = z.strictObject({
  name: z.string().min(1).max(BOUNDS.nameLength).optional(),
  query: settings.query.min(1).max(BOUNDS.queryLength),
  seeds: z.array(settings.seeds.element.min(1).max(BOUNDS.seedLength)).min(1).max(BOUNDS.seedCount),
  ...optionalSettingFields(NEW_CRAWL_SETTINGS),
  strategy: settings.strategy.unwrap().min(1).max(BOUNDS.strategyLength).optional(),
  hotPredicate: settings.hotPredicate.unwrap().unwrap().max(BOUNDS.hotPredicateLength).nullable().optional(),
  include: urlPatterns.optional(),
  exclude: urlPatterns.optional(),
  proxy: settings.proxy.unwrap().max(BOUNDS.proxyLength).optional(),
  start: z.boolean().optional(),
  cookies: z.string().max(BOUNDS.cookiesLength).optional(),
}) satisfies z.ZodType<NewCollectionInput>;

export const INPUT_SCHEMAS = {
  info: noInput,
  listCollections: noInput,
  createCollection: newCollection,
  checkUrlRules: z.strictObject({
    seeds: z.array(z.string().max(BOUNDS.seedLength)).max(BOUNDS.seedCount),
    scope: settings.scope.unwrap(),
    include: urlPatterns,
    exclude: urlPatterns,
    url: z.string().max(BOUNDS.seedLength),
  }),
  deleteCollection: collectionRef,
  forgetSession: collectionRef,
  startCrawl: z.strictObject({ collection, ...optionalSettingFields(['maxPages']) }),
  pauseCrawl: collectionRef,
  resumeCrawl: collectionRef,
  stopCrawl: collectionRef,
  refreshCollection: z.strictObject({
    collection,
    host: z.string().min(1).max(300).regex(/^[^\s]+$/).optional(),
    maxPages: z.number().int().min(1).max(100_000_000).optional(),
  }),
  crawlStatus: collectionRef,
  frontier: z.strictObject({ collection, limit: z.number().int().min(1).max(500).optional() }),
  collectionHosts: collectionRef,
  listPages: z.strictObject({
    collection,
    sort: z.enum(['relevance', 'time', 'url']).optional(),
    hotOnly: z.boolean().optional(),
    type: z.enum(['html', 'pdf', 'text', 'document']).optional(),
    filter: z.string().max(MAX_TEXT).optional(),
    offset: count(100_000_000).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    changedSince: epochMs.optional(),
    newSince: epochMs.optional(),
    gone: z.boolean().optional(),
  }),
  searchPages: z.strictObject({
    collection,
    text: z.string().max(MAX_TEXT),
    limit: z.number().int().min(1).max(500).optional(),
    allVersions: z.boolean().optional(),
  }),
  getPage: pageRef,
  readDocument: pageRef,
  openDocument: pageRef,
  pageVersions: z.strictObject({ collection, seq: z.number().int().min(1), order: z.enum(['newest-first', 'oldest-first']).optional() }),
  versionDiff: z.strictObject({ collection, seq: z.number().int().min(1), from: versionNumber, to: versionNumber }),
  labelPage: z.strictObject({ collection, seq: z.number().int().min(1), label: z.enum(['relevant', 'irrelevant']).nullable() }),
  setHostRender: z.strictObject({ collection, host: z.string().min(1).max(253).regex(/^[^\s=/:]+$/), mode: renderModeSchema.nullable() }),
  exportCollection: z.strictObject({ collection, format: z.enum(['warc', 'wacz', 'jsonl', 'csv', 'mirror']), filter: exportFilter.optional() }),
  runLab: z.strictObject({
    collection,
    strategies: z.array(z.string().min(1).max(40)).min(1).max(20),
    budgets: z.array(z.number().gt(0).max(1)).min(1).max(20),
    hot: z.string().max(MAX_TEXT).optional(),
    judge: z.enum(['truth', 'live']).optional(),
  }),
  clusterStatus: noInput,
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

export type CheckedCall = { ok: true; method: ApiMethod; input: unknown } | { ok: false; error: ApiErrorBody };

/** Checks one call as a transport received it: a known method name, and an input its schema accepts. */
export function checkCall(method: unknown, input: unknown): CheckedCall {
  if (!isApiMethod(method)) return { ok: false, error: { code: 'UNKNOWN_METHOD', message: `there is no API method "${String(method).slice(0, 60)}"` } };
  const checked = checkInput(method, input);
  if (!checked.ok) return { ok: false, error: { code: 'INVALID_INPUT', message: checked.message } };
  return { ok: true, method, input: checked.value };
}
