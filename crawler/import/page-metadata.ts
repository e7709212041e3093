import { z } from 'zod';
import { DOCUMENT_TYPES, type DocumentFacts } from '../parse/documents/document-facts.ts';
import { ImportError } from './import-error.ts';

/** Forager's verdict on a page, from the metadata record that refers to its response. */
export interface PageMetadata {
  relevance: number | null;
  hot: boolean;
  /** The user's label: true relevant, false not relevant, null none. */
  label: boolean | null;
  labelledAt: number | null;
  depth: number | null;
  fetchedAt: number | null;
  /** What the crawl read from the page as a document; null for a web page, or a record written before documents. */
  document: DocumentFacts | null;
}

const METADATA_VERSION = 1;

const documentFacts = z
  .object({
    type: z.enum(DOCUMENT_TYPES),
    pageCount: z.number().int().min(0),
    pagesRead: z.number().int().min(0),
    pageStarts: z.array(z.number().int().min(0)),
    metadata: z.record(z.string(), z.string()),
  })
  .refine((d) => d.pagesRead <= d.pageCount && d.pageStarts.length <= d.pagesRead, 'more pages read than the document has');

const metadataRecord = z.object({
  forager: z.number(),
  relevance: z.number().nullable().optional(),
  hot: z.union([z.boolean(), z.literal(0), z.literal(1)]).optional(),
  label: z.union([z.enum(['relevant', 'irrelevant']), z.boolean(), z.null()]).optional(),
  labelledAt: z.number().nullable().optional(),
  depth: z.number().int().min(0).nullable().optional(),
  /** Epoch ms, or an ISO 8601 date as the exporter writes it. */
  fetchedAt: z.union([z.number(), z.iso.datetime({ offset: true })]).nullable().optional(),
  document: documentFacts.nullable().optional(),
});

function epochMs(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : Date.parse(value);
}

function labelValue(label: string | boolean | null | undefined): boolean | null {
  if (label === 'relevant' || label === true) return true;
  if (label === 'irrelevant' || label === false) return false;
  return null;
}

/**
 * Reads a metadata record's JSON. undefined when it is not Forager's (no "forager" version):
 * another tool's metadata says nothing about relevance. Forager's own, when malformed, is an
 * ImportError rather than a page silently imported without its verdict.
 */
export function parsePageMetadata(block: Buffer, url: string): PageMetadata | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(block.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null || !('forager' in raw)) return undefined;
  const parsed = metadataRecord.safeParse(raw);
  if (!parsed.success) throw new ImportError(`the Forager metadata for ${url} is malformed`, { url });
  const m = parsed.data;
  if (m.forager !== METADATA_VERSION) {
    throw new ImportError(`the metadata for ${url} is version ${m.forager}, which this Forager cannot read (it knows version ${METADATA_VERSION})`, { url, version: m.forager });
  }
  return {
    relevance: m.relevance ?? null,
    hot: m.hot === true || m.hot === 1,
    label: labelValue(m.label),
    labelledAt: m.labelledAt ?? null,
    depth: m.depth ?? null,
    fetchedAt: epochMs(m.fetchedAt),
    document: m.document ?? null,
  };
}
