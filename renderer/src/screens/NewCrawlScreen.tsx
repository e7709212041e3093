import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { UrlRulesCheck, UrlRulesCheckInput } from '../../../crawler/protocol/api.ts';
import { NEW_CRAWL_INPUT_BOUNDS, RENDER_MODES, SCOPES, SPEND_MODES, type RenderMode, type ScopeMode, type SpendMode } from '../../../crawler/protocol/settings.ts';
import { CheckField, Field } from '../components/Field.tsx';
import { EmptyState, ErrorNote } from '../components/Notes.tsx';
import { navigate } from '../hooks/use-hash-route.ts';
import { NEW_CRAWL_DEFAULTS, newCrawlInput, NUMBER_RULES, parsePatternLines, proxyFieldError, readCookiesField, REVISIT_CHOICES, DOCUMENT_CHOICES, DOCUMENT_MIB_RULE, type FieldErrors, type NewCrawlField, type NewCrawlFields, type NewCrawlNumberField } from '../lib/forms.ts';
import { describeSession } from '../lib/session.ts';
import { verdictWords } from '../lib/rule-check.ts';
import { parseSeedLines } from '../lib/seeds.ts';
import { useClient, useInfo, useStore } from '../state/contexts.ts';

const SCOPE_LABELS: Record<ScopeMode, string> = {
  hosts: 'Seed hosts only',
  domains: 'Seed domains and their subdomains',
  any: 'Any site',
};

const SPEND_LABELS: Record<SpendMode, string> = {
  pages: 'Pages: only the best links, waiting for polite sites',
  time: 'Time: any link the budget reaches, on every idle site',
};

const RENDER_LABELS: Record<RenderMode, string> = {
  auto: 'When pages need it (learnt per site section)',
  never: 'Never',
  always: 'Every page',
};

/** min, max and step of a number input, from the settings schema's limits (no max for a setting without one). */
function numberLimits(key: NewCrawlNumberField, step?: number): { min: number; max?: number; step: number | 'any' } {
  const rule = NUMBER_RULES[key];
  return {
    min: rule.min,
    ...(rule.max < Number.MAX_SAFE_INTEGER ? { max: rule.max } : {}),
    step: step ?? (rule.integer ? 1 : 'any'),
  };
}

export function NewCrawlScreen() {
  const client = useClient();
  const info = useInfo();
  const store = useStore();
  const defaultStrategy = info.strategies.includes(NEW_CRAWL_DEFAULTS.strategy) ? NEW_CRAWL_DEFAULTS.strategy : (info.strategies[0] ?? NEW_CRAWL_DEFAULTS.strategy);
  const [fields, setFields] = useState<NewCrawlFields>({ ...NEW_CRAWL_DEFAULTS, strategy: defaultStrategy });
  const [errors, setErrors] = useState<FieldErrors<NewCrawlField>>({});
  const [serverError, setServerError] = useState<unknown>(undefined);
  const [submitting, setSubmitting] = useState(false);
  const advanced = useRef<HTMLDetailsElement>(null);

  if (!info.canManageCollections) {
    return (
      <EmptyState title="New crawls are not available here">
        <p>
          This Forager was opened on a single collection file, so it cannot create new ones. Go back to{' '}
          <a href="#/collections">the collection</a>.
        </p>
      </EmptyState>
    );
  }

  const set = <K extends NewCrawlField>(key: K, value: NewCrawlFields[K]): void => {
    setFields((old) => ({ ...old, [key]: value }));
  };

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const parsed = newCrawlInput(fields);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      setServerError(undefined);
      const invalid = Object.keys(parsed.errors) as NewCrawlField[];
      if (advanced.current !== null && invalid.some((key) => ADVANCED.has(key))) advanced.current.open = true;
      if (invalid[0] !== undefined) document.getElementById(`new-${invalid[0]}`)?.focus();
      return;
    }
    setErrors({});
    setServerError(undefined);
    setSubmitting(true);
    try {
      const created = await client.api.createCollection(parsed.value);
      client.api.listCollections().then((list) => store.setCollections(list), () => undefined);
      navigate({ screen: 'dashboard', collection: created.id });
    } catch (error) {
      setServerError(error);
      setSubmitting(false);
    }
  };

  return (
    <section className="screen narrow">
      <h1>New crawl</h1>
      <p className="lead">
        Describe the topic and where to start. Forager fetches pages politely, one request at a time per site, and
        follows the links that look most promising for your query first.
      </p>
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        <Field id="new-query" label="Driving query" error={errors.query} hint="A few words or a sentence about what you are looking for, e.g. “write-ahead logging and checkpoints”.">
          {(props) => <input {...props} type="text" value={fields.query} onChange={(e) => set('query', e.target.value)} />}
        </Field>
        <Field id="new-seeds" label="Seed URLs" error={errors.seeds} hint="One address per line, each starting with http:// or https://. Lines starting with # are comments, and so is the rest of a line after “ #”.">
          {(props) => <textarea {...props} rows={5} spellCheck={false} value={fields.seeds} onChange={(e) => set('seeds', e.target.value)} />}
        </Field>
        <div className="form-row">
          <Field id="new-maxPages" label="Page budget" error={errors.maxPages} hint="How many pages to fetch in all.">
            {(props) => <input {...props} type="number" {...numberLimits('maxPages')} value={fields.maxPages} onChange={(e) => set('maxPages', e.target.value)} />}
          </Field>
          <Field id="new-delayMs" label="Politeness delay (ms)" error={errors.delayMs} hint="The least time between two requests to one site.">
            {(props) => <input {...props} type="number" {...numberLimits('delayMs', 100)} value={fields.delayMs} onChange={(e) => set('delayMs', e.target.value)} />}
          </Field>
        </div>
        <div className="form-row">
          <Field id="new-scope" label="Scope" hint="Which links the crawl may follow: only those to the exact hosts of the seeds, also those to other hosts of the same domains (docs.example.org for www.example.org), or links to anywhere.">
            {(props) => (
              <select {...props} value={fields.scope} onChange={(e) => set('scope', e.target.value as ScopeMode)}>
                {SCOPES.map((scope) => (
                  <option key={scope} value={scope}>
                    {SCOPE_LABELS[scope]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="new-strategy" label="Strategy" hint="The order in which found links are fetched; focused puts the likeliest matches first.">
            {(props) => (
              <select {...props} value={fields.strategy} onChange={(e) => set('strategy', e.target.value)}>
                {info.strategies.map((strategy) => (
                  <option key={strategy} value={strategy}>
                    {strategy}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="new-render" label="Render with a browser" hint="Pages built by JavaScript show their text and links only in a browser. Auto renders the first pages of each site section that look built by scripts, and goes on rendering that section only when rendering changed them.">
            {(props) => (
              <select {...props} value={fields.render} onChange={(e) => set('render', e.target.value as RenderMode)}>
                {RENDER_MODES.map((mode) => (
                  <option key={mode} value={mode}>
                    {RENDER_LABELS[mode]}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <details className="advanced" ref={advanced}>
          <summary>Advanced settings</summary>
          <div className="advanced-body">
            <UrlRulesFields fields={fields} errors={errors} set={set} />
            <ConnectionFields fields={fields} set={set} />
            <div className="form-row">
              <Field id="new-concurrency" label="Concurrency" error={errors.concurrency} hint="Requests in flight across all sites (never more than one per site).">
                {(props) => <input {...props} type="number" {...numberLimits('concurrency')} value={fields.concurrency} onChange={(e) => set('concurrency', e.target.value)} />}
              </Field>
              <Field id="new-maxDepth" label="Maximum depth" error={errors.maxDepth} hint="How many links away from a seed a page may be.">
                {(props) => <input {...props} type="number" {...numberLimits('maxDepth')} value={fields.maxDepth} onChange={(e) => set('maxDepth', e.target.value)} />}
              </Field>
              <Field id="new-spend" label="Spend the budget on" hint="With several sites, each waits between requests. Pages: a site is asked only for one of the crawl's best links, so the budget goes where the topic is, even if the crawl waits for a polite site. Time: an idle site is asked for any link the budget would still reach.">
                {(props) => (
                  <select {...props} value={fields.spend} onChange={(e) => set('spend', e.target.value as SpendMode)}>
                    {SPEND_MODES.map((mode) => (
                      <option key={mode} value={mode}>
                        {SPEND_LABELS[mode]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </div>
            <Field
              id="new-revisitAfter"
              label="Keep the collection fresh"
              hint="Keep crawling after the budget is spent, and revisit each stored page this long after its last check: unchanged pages cost a short conditional request, changed ones are stored as new versions beside the old."
            >
              {(props) => (
                <select {...props} value={fields.revisitAfter} onChange={(e) => set('revisitAfter', e.target.value)}>
                  {REVISIT_CHOICES.map((choice) => (
                    <option key={choice.value} value={choice.value}>
                      {choice.label}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field
              id="new-documents"
              label="Documents"
              hint="Besides web pages, read these documents: fetched whole, judged, searched and exported like pages. Their own scripts never run."
            >
              {(props) => (
                <select {...props} value={fields.documents} onChange={(e) => set('documents', e.target.value)}>
                  {DOCUMENT_CHOICES.map((choice) => (
                    <option key={choice.value} value={choice.value}>
                      {choice.label}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field id="new-maxDocumentMiB" label="Largest document (MiB)" error={errors.maxDocumentMiB} hint="A larger document is recorded as too large, without its content.">
              {(props) => <input {...props} type="number" min={DOCUMENT_MIB_RULE.min} max={DOCUMENT_MIB_RULE.max} step={1} value={fields.maxDocumentMiB} onChange={(e) => set('maxDocumentMiB', e.target.value)} />}
            </Field>
            <Field
              id="new-hotPredicate"
              label="Hot predicate"
              error={errors.hotPredicate}
              hint={HOT_PREDICATE_HINT}
            >
              {(props) => <input {...props} type="text" spellCheck={false} value={fields.hotPredicate} onChange={(e) => set('hotPredicate', e.target.value)} />}
            </Field>
            <Field id="new-hotThreshold" label="Hot threshold" error={errors.hotThreshold} hint={`Optional, between ${NUMBER_RULES.hotThreshold.min} and ${NUMBER_RULES.hotThreshold.max}: a page is hot when its relevance is at least this. Blank: a default that suits the query.`}>
              {(props) => <input {...props} type="number" {...numberLimits('hotThreshold', 0.01)} value={fields.hotThreshold} onChange={(e) => set('hotThreshold', e.target.value)} />}
            </Field>
            <Field id="new-name" label="Collection name" error={errors.name} hint="Optional: the file name. Letters, digits, spaces, - and _. Blank: made from the query.">
              {(props) => <input {...props} type="text" value={fields.name} onChange={(e) => set('name', e.target.value)} />}
            </Field>
            <CheckField
              id="new-allowPrivate"
              label="Allow private addresses"
              checked={fields.allowPrivate}
              onChange={(checked) => set('allowPrivate', checked)}
              hint="Lets the crawl reach private, loopback and link-local addresses, such as a site on this computer (127.0.0.1) or on your local network. Leave it off for crawls of the public web."
            />
          </div>
        </details>
        <ErrorNote error={serverError} />
        <div className="form-actions">
          <button type="submit" disabled={submitting}>
            {submitting ? 'Starting…' : 'Start crawl'}
          </button>
        </div>
      </form>
    </section>
  );
}

const HOT_PREDICATE_HINT = (
  <>
    Optional: which pages count as hot, instead of a relevance threshold. Clauses joined by <code>|</code>; a page is hot
    when any of them holds: <code>title:TERM</code> (the title contains TERM), <code>title&gt;=N:TERM</code>,{' '}
    <code>body:TERM</code>, <code>body&gt;=N:TERM</code> (the text contains TERM at least N times) or{' '}
    <code>relevance&gt;=X</code>. TERM is a word or a “quoted phrase”; word forms match (checkpoints matches checkpoint).
    Example: <code>title:wal|body&gt;=3:checkpoint</code>
  </>
);

/** How long the rules editor waits after a keystroke before asking the service. */
const CHECK_DELAY_MS = 250;

/**
 * The include and exclude boxes with their problems as they are typed, and "Would this URL
 * be crawled?", answered by the service with the crawler's own admission gate.
 */
function UrlRulesFields({ fields, errors, set }: { fields: NewCrawlFields; errors: FieldErrors<NewCrawlField>; set: <K extends NewCrawlField>(key: K, value: NewCrawlFields[K]) => void }) {
  const client = useClient();
  const [probe, setProbe] = useState('');
  const [check, setCheck] = useState<UrlRulesCheck | undefined>(undefined);
  const [checkError, setCheckError] = useState<string | undefined>(undefined);
  const include = parsePatternLines(fields.include);
  const exclude = parsePatternLines(fields.exclude);
  const seeds = parseSeedLines(fields.seeds).urls;
  const request = JSON.stringify({ seeds, scope: fields.scope, include: include.patterns, exclude: exclude.patterns, url: probe });

  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      client.api.checkUrlRules(JSON.parse(request) as UrlRulesCheckInput).then(
        (answer) => {
          if (!current) return;
          setCheck(answer);
          setCheckError(undefined);
        },
        (error: unknown) => {
          if (current) setCheckError(error instanceof Error ? error.message : String(error));
        },
      );
    }, CHECK_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [client, request]);

  const liveError = (list: 'include' | 'exclude', local: string[]): string | undefined => {
    const remote = (check?.problems ?? []).filter((p) => p.list === list).map((p) => `“${p.pattern}”: ${p.why}.`);
    const all = [...local, ...remote];
    return all.length > 0 ? all.join('\n') : errors[list];
  };
  // With a pattern the crawl would refuse, no answer: it would judge by the other patterns only.
  const patternsOk = include.problems.length === 0 && exclude.problems.length === 0 && (check?.problems.length ?? 0) === 0;
  const answer = !patternsOk ? (probe.trim() === '' ? undefined : { crawled: false, text: 'Fix the patterns above to see the answer.' }) : check?.verdict == null ? undefined : verdictWords(check.verdict);
  return (
    <>
      <div className="form-row">
        <Field id="new-include" label="Include only URLs matching" error={liveError('include', include.problems)} hint={PATTERN_HINT}>
          {(props) => <textarea {...props} rows={3} spellCheck={false} placeholder="https://example.org/docs/**" value={fields.include} onChange={(e) => set('include', e.target.value)} />}
        </Field>
        <Field id="new-exclude" label="Exclude URLs matching" error={liveError('exclude', exclude.problems)} hint="Never fetched, even when included. A page's stylesheets and images follow their page, whatever the rules say.">
          {(props) => <textarea {...props} rows={3} spellCheck={false} placeholder="**/*.zip" value={fields.exclude} onChange={(e) => set('exclude', e.target.value)} />}
        </Field>
      </div>
      <Field id="new-ruleProbe" label="Would this URL be crawled?" error={checkError} hint="Type a URL a page might link to: the answer is the crawler's, from the seeds, the scope and the patterns above.">
        {(props) => <input {...props} type="text" inputMode="url" spellCheck={false} placeholder="https://example.org/docs/page.html" value={probe} onChange={(e) => setProbe(e.target.value)} />}
      </Field>
      {answer !== undefined && (
        <p className={`rule-verdict ${answer.crawled ? 'rule-verdict-yes' : 'rule-verdict-no'}`} role="status" data-testid="rule-verdict">
          {answer.text}
        </p>
      )}
    </>
  );
}

const PATTERN_HINT = (
  <>
    One pattern a line; blank: every URL in scope. A glob over the whole URL (<code>https://example.org/docs/**</code>,{' '}
    <code>**/*.pdf</code>; <code>*</code> stays within a folder, <code>**</code> crosses folders, a query string may follow) or a
    regular expression between slashes (<code>/\/v\d+\//i</code>). Seeds are always fetched.
  </>
);

const ADVANCED: ReadonlySet<NewCrawlField> = new Set(['include', 'exclude', 'proxy', 'cookies', 'concurrency', 'maxDepth', 'hotPredicate', 'hotThreshold', 'name', 'allowPrivate', 'revisitAfter', 'documents', 'maxDocumentMiB']);

/** A cookies.txt larger than this many bytes is not read: the service would refuse its text anyway (UTF-8 takes up to 4 bytes a character). */
const MAX_COOKIES_FILE_BYTES = 4 * NEW_CRAWL_INPUT_BOUNDS.cookiesLength;

/**
 * How the crawl reaches the sites: the proxy, and a logged-in session from a cookies.txt
 * (pasted, or read from a file into the box). Both are checked as they are typed, as the
 * crawler checks them; no cookie value is ever shown but in the box itself.
 */
function ConnectionFields({ fields, set }: { fields: NewCrawlFields; set: <K extends NewCrawlField>(key: K, value: NewCrawlFields[K]) => void }) {
  const [fileError, setFileError] = useState<string | undefined>(undefined);
  // Read again only when the box changes: a whole browser's export is large, and every keystroke elsewhere renders this.
  const cookies = useMemo(() => readCookiesField(fields.cookies), [fields.cookies]);

  const readFile = (file: File | undefined): void => {
    setFileError(undefined);
    if (file === undefined) return;
    if (file.size > MAX_COOKIES_FILE_BYTES) {
      setFileError(`${file.name} is too large for a cookies.txt.`);
      return;
    }
    const reader = new FileReader();
    reader.onload = () => set('cookies', String(reader.result ?? ''));
    reader.onerror = () => setFileError(`${file.name} could not be read.`);
    reader.readAsText(file);
  };

  const cookiesError = [...cookies.problems, ...(fileError === undefined ? [] : [fileError])];
  return (
    <>
      <Field id="new-proxy" label="Proxy" error={proxyFieldError(fields.proxy)} hint={PROXY_HINT}>
        {(props) => <input {...props} type="text" inputMode="url" spellCheck={false} autoComplete="off" placeholder="socks5h://127.0.0.1:9050" value={fields.proxy} onChange={(e) => set('proxy', e.target.value)} />}
      </Field>
      <Field id="new-cookies" label="Cookies (cookies.txt)" error={cookiesError.length > 0 ? cookiesError.join('\n') : undefined} hint={COOKIES_HINT}>
        {(props) => (
          <>
            <textarea {...props} rows={4} spellCheck={false} autoComplete="off" placeholder={'# Netscape HTTP Cookie File\n.example.org\tTRUE\t/\tTRUE\t0\tsession\t…'} value={fields.cookies} onChange={(e) => set('cookies', e.target.value)} />
            <input type="file" accept=".txt,text/plain" aria-label="Read cookies from a cookies.txt file" onChange={(e) => readFile(e.target.files?.[0])} />
          </>
        )}
      </Field>
      {cookies.cookies > 0 && (
        <p className="hint" role="status" data-testid="cookies-summary">
          {describeSession(cookies)}.
        </p>
      )}
    </>
  );
}

const PROXY_HINT = (
  <>
    Every request of the crawl goes through it, the browser's included: <code>http://</code>, <code>https://</code>,{' '}
    <code>socks5://</code> or <code>socks5h://</code> (the proxy resolves names, as Tor wants), with{' '}
    <code>user:password@</code> if it asks for one. Blank: the proxy of the app's environment (<code>HTTPS_PROXY</code>,{' '}
    <code>HTTP_PROXY</code>, <code>ALL_PROXY</code>, <code>NO_PROXY</code>); <code>none</code>: connect directly.
  </>
);

const COOKIES_HINT = (
  <>
    A logged-in session: paste a Netscape <code>cookies.txt</code> (as browser extensions export it), or read one from a
    file. Each cookie is sent only to the site and path it belongs to; the cookies stay in the collection, never in its
    exports.
  </>
);
