/*
 * htmlparser2 keeps its open elements in an array that it shifts at every open tag, so its
 * cost is quadratic in the nesting depth: 160,000 nested <div>s take seconds, and about
 * 30 KB of gzip inflate to millions of them. When a parser reaches MAX_PARSER_DEPTH open
 * elements, parsing goes on with a fresh parser from the next tag on, so the cost stays
 * linear. The handler is told (onrestart) that the new parser starts outside every element,
 * and closes its own open state as it sees fit.
 */
import { Parser, type Handler } from 'htmlparser2';

export const MAX_PARSER_DEPTH = 512;

/** htmlparser2 reads these as raw text: a fresh parser must not start inside one. */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

export interface BoundedHandler extends Pick<Partial<Handler>, 'ontext' | 'oncomment' | 'onprocessinginstruction'> {
  onopentag(name: string, attribs: Record<string, string>): void;
  onclosetag(name: string): void;
  /** Parsing goes on with a fresh parser: no element the handler saw open will be closed. */
  onrestart(): void;
}

/** Parses `html` to its end through `handler`, starting a fresh parser whenever one gets too deep. */
export function parseBounded(html: string, handler: BoundedHandler): void {
  let parser: Parser | undefined;
  let depth = 0;
  let resumeAt = -1;
  const events: Partial<Handler> = {
    onopentag(name, attribs) {
      depth++;
      handler.onopentag(name, attribs);
      if (depth >= MAX_PARSER_DEPTH && resumeAt < 0 && !RAW_TEXT_ELEMENTS.has(name)) {
        resumeAt = (parser as Parser).endIndex + 1;
        (parser as Parser).pause();
      }
    },
    onclosetag(name) {
      depth--;
      handler.onclosetag(name);
    },
  };
  if (handler.ontext !== undefined) events.ontext = handler.ontext.bind(handler);
  if (handler.oncomment !== undefined) events.oncomment = handler.oncomment.bind(handler);
  if (handler.onprocessinginstruction !== undefined) events.onprocessinginstruction = handler.onprocessinginstruction.bind(handler);
  let offset = 0;
  for (;;) {
    parser = new Parser(events);
    depth = 0;
    resumeAt = -1;
    parser.end(offset === 0 ? html : html.slice(offset));
    if (resumeAt < 0) return;
    offset += resumeAt;
    handler.onrestart();
  }
}
