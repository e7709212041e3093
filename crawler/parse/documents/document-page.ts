/*
 * A document as the ExtractedPage the rest of the crawler reads: its title, text and links,
 * with what only a web page has (robots meta, site resources, script signs, requisites) empty.
 */
import type { ExtractedPage } from '../extract-html.ts';
import type { DocumentLinks } from './text-links.ts';

export interface DocumentPageFields {
  url: string;
  title: string;
  text: string;
  textTruncated: boolean;
  links: DocumentLinks;
  lang: string | undefined;
}

export function documentPage(fields: DocumentPageFields): ExtractedPage {
  const page: ExtractedPage = {
    title: fields.title,
    text: fields.text,
    textTruncated: fields.textTruncated,
    wordCount: countWords(fields.text),
    links: fields.links.links,
    linksDropped: fields.links.dropped,
    resolvedBase: fields.url,
    robots: { noindex: false, nofollow: false },
    siteResources: [],
    scriptSigns: { scripts: 0, emptyAppRoot: false, noscriptText: '' },
    requisites: [],
  };
  if (fields.lang !== undefined) page.lang = fields.lang;
  return page;
}

function countWords(text: string): number {
  let words = 0;
  for (const _ of text.matchAll(/\S+/g)) words++;
  return words;
}
