/**
 * Schema migrations, oldest first. `PRAGMA user_version` records how many have run;
 * each runs in its own transaction, so a crash mid-migration leaves the previous version.
 */
export const MIGRATIONS: readonly string[] = [
  /* 1: the first Forager schema */ `
  CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE hosts (
    id               INTEGER PRIMARY KEY,
    origin           TEXT NOT NULL UNIQUE,
    robots_status    INTEGER,          -- HTTP status of /robots.txt, or NULL before the first fetch
    robots_body      BLOB,             -- the file as received (2xx only)
    robots_fetched_at INTEGER,
    robots_failures  INTEGER NOT NULL DEFAULT 0,
    pages_fetched    INTEGER NOT NULL DEFAULT 0
  );

  -- One row per canonical URL ever seen: this table is the persistent "seen" set and the frontier.
  CREATE TABLE urls (
    id        INTEGER PRIMARY KEY,
    fp        INTEGER NOT NULL,        -- 64-bit fingerprint of the canonical URL
    url       TEXT NOT NULL,
    host_id   INTEGER NOT NULL,
    depth     INTEGER NOT NULL,
    state     INTEGER NOT NULL,        -- see UrlState
    parent_id INTEGER,
    redirects INTEGER NOT NULL DEFAULT 0,
    attempts  INTEGER NOT NULL DEFAULT 0,
    reason    TEXT                     -- why it was skipped, blocked or failed
  );
  -- The seen test. Host first: most links point into their own host, so the index pages a
  -- page's links touch are few and close together (Mercator's host-prefixed fingerprints).
  CREATE UNIQUE INDEX urls_seen ON urls(host_id, fp);
  -- No index orders the frontier: each run loads queued URLs into per-host heaps in memory,
  -- so a new URL costs one index insert (the fingerprint), not two.

  CREATE TABLE pages (
    seq            INTEGER PRIMARY KEY,  -- fetch order
    url_id         INTEGER NOT NULL UNIQUE,
    status         INTEGER NOT NULL,
    http_version   TEXT,
    status_text    TEXT,
    headers        TEXT NOT NULL,        -- JSON array of [name, value] pairs as received
    content_type   TEXT,
    charset        TEXT,
    body           BLOB,                 -- gzip of the decoded body
    body_bytes     INTEGER NOT NULL DEFAULT 0,
    wire_bytes     INTEGER NOT NULL DEFAULT 0,
    title          TEXT,
    text           TEXT,
    terms          TEXT,                 -- the page's distinct content terms (stems), space-separated, capped
    relevance      REAL,                 -- IS'(P,Q) when fetched (blended with the label model once it is ready)
    hot            INTEGER NOT NULL DEFAULT 0,
    noindex        INTEGER NOT NULL DEFAULT 0,
    nofollow       INTEGER NOT NULL DEFAULT 0,
    canonical      TEXT,
    redirect_to    INTEGER,              -- url id a 3xx pointed at
    note           TEXT,                 -- why the body was not parsed, if it was not
    started_at     INTEGER NOT NULL,     -- epoch ms
    fetched_at     INTEGER NOT NULL,     -- epoch ms, when the response completed
    response_ms    INTEGER NOT NULL,
    remote_address TEXT
  );

  CREATE TABLE links (
    src_seq        INTEGER NOT NULL,
    dst_id         INTEGER NOT NULL,
    anchor         TEXT NOT NULL,
    context_before TEXT NOT NULL,
    context_after  TEXT NOT NULL,
    PRIMARY KEY (src_seq, dst_id)
  ) WITHOUT ROWID;
  CREATE INDEX links_by_dst ON links(dst_id);

  CREATE VIRTUAL TABLE pages_fts USING fts5(
    title, text,
    content = 'pages', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );

  -- The user's judgements: 1 relevant, 0 not relevant. Ground truth for the learner.
  CREATE TABLE labels (
    url_id     INTEGER PRIMARY KEY,
    relevant   INTEGER NOT NULL,
    labelled_at INTEGER NOT NULL
  );

  -- One row per run of the engine (crawl or resume), for rates and the cache hit rate.
  CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    started_at    INTEGER NOT NULL,
    ended_at      INTEGER,
    pages         INTEGER NOT NULL DEFAULT 0,
    bytes         INTEGER NOT NULL DEFAULT 0,
    seen_lookups  INTEGER NOT NULL DEFAULT 0,
    seen_hits     INTEGER NOT NULL DEFAULT 0,
    outcome       TEXT
  );
  `,
  /* 2: what a WARC needs: the request as sent and the payload as received */ `
  ALTER TABLE pages ADD COLUMN request_head TEXT;   -- request line and headers exactly as sent; NULL before version 2
  ALTER TABLE pages ADD COLUMN payload BLOB;        -- body bytes as received (still content-encoded) when a Content-Encoding applied; NULL: the decoded body is the payload
  `,
  /* 3: site resources (sitemaps, site search indexes) are URLs of their own kind */ `
  ALTER TABLE urls ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;  -- what the URL is expected to hold: 0 page, 1 sitemap, 2 search index (see url-kind.ts)
  -- Resources are a handful per site: this partial index finds them without scanning the table.
  CREATE INDEX urls_resources ON urls(id) WHERE kind <> 0;
  `,
  /* 4: the judge's own verdict, kept when a label overrides it; verdicts revised by relevance */ `
  ALTER TABLE pages ADD COLUMN judged_hot INTEGER;  -- the judge's verdict (hot is the label when there is one); NULL when not judged
  -- Labelled pages of older collections: their original verdict was overwritten, the label is all there is.
  UPDATE pages SET judged_hot = hot WHERE relevance IS NOT NULL;
  -- The hot bar moves as the crawl learns; pages between the old and the new bar are found through this.
  CREATE INDEX pages_by_relevance ON pages(relevance) WHERE relevance IS NOT NULL;
  `,
  /* 5: duplicates and soft 404s */ `
  ALTER TABLE pages ADD COLUMN simhash INTEGER;        -- 64-bit simhash of the text (relevance/simhash.ts); NULL when unparsed or too short
  ALTER TABLE pages ADD COLUMN body_hash TEXT;         -- SHA-256 of the decoded body of a parsed page, hex
  ALTER TABLE pages ADD COLUMN duplicate_of INTEGER;   -- seq of the earlier page this one duplicates
  ALTER TABLE pages ADD COLUMN duplicate_kind TEXT;    -- 'exact' (same body: stored once, body and payload NULL here) or 'near' (simhash within 3 bits)
  ALTER TABLE pages ADD COLUMN soft404 INTEGER NOT NULL DEFAULT 0;  -- a 200 that looks like the host's answer for a page that does not exist
  CREATE INDEX pages_by_body_hash ON pages(body_hash) WHERE body_hash IS NOT NULL AND duplicate_of IS NULL;
  ALTER TABLE hosts ADD COLUMN soft404_probed INTEGER NOT NULL DEFAULT 0;  -- 1 once a random path was asked for
  ALTER TABLE hosts ADD COLUMN soft404_simhash INTEGER;                      -- the simhash of its 200 answer to that path; NULL when it answered 404
  `,
  /* 6: pages rendered in a browser, what their scripts fetched, and the stylesheets, images and fonts pages need */ `
  CREATE TABLE renders (
    page_seq    INTEGER PRIMARY KEY,   -- the page (pages.seq) whose raw response was rendered
    dom         BLOB NOT NULL,         -- the serialised DOM after scripts ran, gzipped
    rendered_at INTEGER NOT NULL,
    render_ms   INTEGER NOT NULL,
    timed_out   INTEGER NOT NULL,      -- 1 when the render's time limit cut it short
    links_added INTEGER NOT NULL,      -- links the render found that the raw HTML did not have
    requests    TEXT NOT NULL          -- JSON: each request the page made, [url, type, outcome]
  );
  -- Scripts, stylesheets, images, fonts and API answers fetched for renders and as page requisites: once per crawl, whatever the pages that use them.
  CREATE TABLE subresources (
    url        TEXT PRIMARY KEY,
    status     INTEGER NOT NULL,
    headers    TEXT NOT NULL,          -- JSON object of the response headers kept
    body       BLOB NOT NULL,          -- decoded body
    fetched_at INTEGER NOT NULL
  );
  -- What each stored page needs to be shown as it was: its stylesheets, images and fonts (by URL, in subresources once fetched).
  CREATE TABLE requisites (
    page_seq INTEGER NOT NULL,
    url      TEXT NOT NULL,
    PRIMARY KEY (page_seq, url)
  ) WITHOUT ROWID;
  `,
  /* 7: stored pages whose requisites are still to be fetched, so that a resume (after a pause or a kill) fetches them */ `
  CREATE TABLE requisites_pending (
    page_seq   INTEGER PRIMARY KEY,  -- the page (pages.seq), written in the page's own transaction
    page_url   TEXT NOT NULL,        -- the URL the page was asked for (the scope of --requisites is its origin)
    requisites TEXT NOT NULL         -- JSON: the hrefs as written, the URL the page came from and its <base href>
  );
  `,
  /* 8: revisits: a page's earlier versions, each check of a stored page, and soft 404s learnt per folder */ `
  -- A pages row holds a URL's latest version; its seq is the page's identity across versions.
  ALTER TABLE pages ADD COLUMN version INTEGER NOT NULL DEFAULT 1;   -- versions stored (older ones are in page_versions)
  ALTER TABLE pages ADD COLUMN first_fetched_at INTEGER;             -- when the first version was fetched; NULL: fetched_at (never changed)
  ALTER TABLE pages ADD COLUMN checked_at INTEGER;                   -- the last answer from the server, fetch or revisit; NULL: fetched_at
  ALTER TABLE pages ADD COLUMN gone_at INTEGER;                      -- when a revisit found it gone (404, 410, a soft 404); NULL while it is there
  ALTER TABLE pages ADD COLUMN revisit_count INTEGER NOT NULL DEFAULT 0;  -- revisits answered (for its change rate)
  ALTER TABLE pages ADD COLUMN change_count INTEGER NOT NULL DEFAULT 0;   -- of those, the ones that found it changed or gone
  CREATE INDEX pages_by_checked ON pages(coalesce(checked_at, fetched_at));

  -- A page's earlier versions, replaced by a changed one; the body is moved here, never copied.
  CREATE TABLE page_versions (
    id             INTEGER PRIMARY KEY,
    page_seq       INTEGER NOT NULL,     -- pages.seq: the page this was a version of
    version        INTEGER NOT NULL,     -- 1 for the first
    status         INTEGER NOT NULL,
    http_version   TEXT,
    status_text    TEXT,
    headers        TEXT NOT NULL,
    content_type   TEXT,
    charset        TEXT,
    body           BLOB,                 -- gzip of the decoded body; NULL when duplicate_of holds it, or none was kept
    body_bytes     INTEGER NOT NULL,
    wire_bytes     INTEGER NOT NULL,
    title          TEXT,
    text           TEXT,
    relevance      REAL,
    hot            INTEGER NOT NULL,
    note           TEXT,
    started_at     INTEGER NOT NULL,
    fetched_at     INTEGER NOT NULL,
    response_ms    INTEGER NOT NULL,
    remote_address TEXT,
    request_head   TEXT,
    payload        BLOB,
    body_hash      TEXT,
    duplicate_of   INTEGER,              -- pages.seq whose body this version had (exact duplicates store none)
    UNIQUE (page_seq, version)
  );
  CREATE VIRTUAL TABLE versions_fts USING fts5(
    title, text,
    content = 'page_versions', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );

  -- Each revisit of a stored page: what the server answered and what it meant.
  CREATE TABLE revisits (
    id             INTEGER PRIMARY KEY,
    page_seq       INTEGER NOT NULL,
    version        INTEGER NOT NULL,     -- the version it confirmed (not-modified, identical) or replaced (changed), or the last one (gone)
    outcome        TEXT NOT NULL,        -- 'not-modified' (a 304), 'identical' (a 200 with the same payload), 'changed', 'gone'
    status         INTEGER NOT NULL,
    http_version   TEXT,
    status_text    TEXT,
    headers        TEXT NOT NULL,        -- JSON array of [name, value] pairs as received
    request_head   TEXT,
    started_at     INTEGER NOT NULL,
    fetched_at     INTEGER NOT NULL,
    response_ms    INTEGER NOT NULL,
    wire_bytes     INTEGER NOT NULL,
    remote_address TEXT
  );
  CREATE INDEX revisits_by_page ON revisits(page_seq, fetched_at);

  -- Soft 404s below a host's root: the simhash of a folder's 200 answer to a name that cannot exist.
  CREATE TABLE soft404_folders (
    host_id   INTEGER NOT NULL,
    folder    TEXT NOT NULL,            -- the path up to and including its last '/'
    simhash   INTEGER,                  -- NULL when the folder answered with a real 404 (or said nothing)
    probed_at INTEGER NOT NULL,
    PRIMARY KEY (host_id, folder)
  ) WITHOUT ROWID;
  `,
  /* 9: documents (PDF, plain text): what was read from a page row's body besides its title, text and links */ `
  CREATE TABLE documents (
    page_seq    INTEGER PRIMARY KEY,   -- the pages row whose body and text the document is (its latest version)
    type        TEXT NOT NULL,         -- 'pdf' or 'text'
    page_count  INTEGER NOT NULL,      -- pages the document has
    pages_read  INTEGER NOT NULL,      -- pages whose text was read (the page and time caps may stop short)
    page_starts TEXT NOT NULL,         -- JSON array: where each page read starts in pages.text (UTF-16 offsets)
    metadata    TEXT NOT NULL          -- JSON object of the document's own metadata (title, author, created…)
  );
  `,
  /* 10: the collection's cookie jar (a logged-in session): it never leaves the collection */ `
  CREATE TABLE cookies (
    domain     TEXT NOT NULL,   -- as RFC 6265 stores it: lowercased, no leading dot
    path       TEXT NOT NULL,
    name       TEXT NOT NULL,
    cookie     TEXT NOT NULL,   -- tough-cookie's JSON of the cookie, its value included
    PRIMARY KEY (domain, path, name)
  ) WITHOUT ROWID;
  `,
  /* 11: a cluster shard's own bookkeeping, which merge never reads. IF NOT EXISTS: the workers created these tables themselves in shards written before this version */ `
  -- Links to other partitions, written with the page they are on and deleted once Redis took them (cluster/shard-outbox.ts).
  CREATE TABLE IF NOT EXISTS cluster_outbox (
    id        INTEGER PRIMARY KEY,
    url       TEXT NOT NULL,
    parent_id INTEGER NOT NULL,
    depth     INTEGER NOT NULL,
    anchor    TEXT NOT NULL,
    context   TEXT NOT NULL
  );

  -- The epoch of the lease that owns the shard: an older owner's writes are refused (cluster/shard-fence.ts).
  CREATE TABLE IF NOT EXISTS cluster_fence (id INTEGER PRIMARY KEY CHECK (id = 1), epoch INTEGER NOT NULL);
  `,
  /* 12: an outbox link's destination partition, so that links for a partition whose stream is full wait while the others are sent */ `
  -- NULL in rows written before this version: cluster/shard-outbox.ts fills it in when it opens the shard.
  ALTER TABLE cluster_outbox ADD COLUMN destination INTEGER;
  CREATE INDEX cluster_outbox_by_destination ON cluster_outbox (destination);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** 'Frgr' — marks a SQLite file as a Forager collection. */
export const APPLICATION_ID = 0x46726772;
