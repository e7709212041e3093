/**
 * Synthetic link discoveries for the seen-test benchmark, page by page. The stream has
 * the two properties the seen test depends on: ~30% of a page's links repeat recent
 * ones (Broder et al.), and most links stay on the page's host.
 */
const LINKS_PER_PAGE = 60;
/** Broder et al. saw ~30% of a page's links repeat ones seen shortly before. */
const REPEAT_SHARE = 0.3;
/** Most links point into the page's own host (about three in four on the web). */
const SAME_HOST_SHARE = 0.75;
const HOSTS = 1000;

/** A deterministic generator, so every run (and the peer) sees the same URLs. */
export function* discoveredUrls(distinct: number): Generator<string[]> {
  let seed = 12345;
  const rand = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  let made = 0;
  const recent: string[] = [];
  while (made < distinct) {
    const page: string[] = [];
    const pageHost = Math.floor(rand() * HOSTS);
    for (let i = 0; i < LINKS_PER_PAGE && made < distinct; i++) {
      if (recent.length > 0 && rand() < REPEAT_SHARE) {
        page.push(recent[Math.floor(rand() * recent.length)] as string);
        continue;
      }
      const host = rand() < SAME_HOST_SHARE ? pageHost : Math.floor(rand() * HOSTS);
      const url = `https://www.site${host}.example/section-${made % 97}/article/${made}.html?ref=${made % 13}`;
      made++;
      page.push(url);
      if (recent.length < 5000) recent.push(url);
      else recent[Math.floor(rand() * recent.length)] = url;
    }
    yield page;
  }
}

