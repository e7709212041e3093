import { memo } from 'react';
import { splitSnippet } from '../lib/snippet.ts';

/** A search snippet with its matched words in <mark>, built as React text, never as HTML. */
export const Snippet = memo(function Snippet({ text }: { text: string }) {
  return (
    <span className="snippet">
      {splitSnippet(text).map((part, i) => (part.marked ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}
    </span>
  );
});
