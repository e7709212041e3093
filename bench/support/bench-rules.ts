/**
 * The include and exclude rules of `npm run bench:rules`: 20 of each, written as users write
 * them for documentation sites (folders, file types, versions, languages, tracking
 * parameters), globs and regular expressions mixed. Together they admit every page of the
 * benchmark's sites, so a crawl with them fetches what a crawl without them fetches: the
 * includes that fit the site are last, so most URLs are tried against all the others first,
 * and no exclude matches a page of the site.
 */

const includes = (origin: string): string[] => [
  `${origin}/docs/**`,
  `${origin}/manual/**`,
  `${origin}/reference/**`,
  '**/api/**',
  '**/tutorial/**',
  '**/howto/**',
  '/\\/v\\d+(\\.\\d+)*\\//',
  '**/guide/**',
  '**/faq/**',
  '/\\/(en|de|fr|ja|zh-cn)\\//',
  '**/blog/20[0-9][0-9]/**',
  '**/whatsnew/**',
  '**/c-api/**',
  '**/man[1-8]/**',
  '**/chapters/**',
  '**/topics/**',
  '/\\/releases?\\/[0-9.]+\\//i',
  '**/getting-started/**',
  '**/*.{html,htm,txt}',
  `${origin}/**`,
];

const EXCLUDES: readonly string[] = [
  '**/*.zip',
  '**/*.{tar,gz,bz2,xz,tgz}',
  '**/*.{exe,msi,dmg,iso}',
  '**/*.{mp4,mp3,avi,mov,webm}',
  '**/login/**',
  '**/logout*',
  '**/private/**',
  '**/wp-admin/**',
  '**/cart/**',
  '**/calendar/**',
  '**/print/**',
  '**/share?*',
  '/[?&](sessionid|sid|phpsessid)=/i',
  '/[?&]utm_[a-z]+=/',
  '/\\/tag\\/[^/]+\\/page\\/\\d+/',
  '/\\/(19|20)\\d\\d\\/\\d\\d\\/\\d\\d\\//',
  '/\\.(jpe?g|png|gif|webp|svg)$/i',
  '**/feed/**',
  '**/*.{ps,dvi,epub}',
  '/\\/archive\\/v\\d+\\//',
];

export const RULE_COUNTS = { include: includes('http://x').length, exclude: EXCLUDES.length } as const;

/** The rules for a site served at `origin`. */
export function benchRules(origin: string): { include: string[]; exclude: string[] } {
  return { include: includes(origin), exclude: [...EXCLUDES] };
}

/** The `crawl` flags that give them. */
export function benchRuleArgs(origin: string): string[] {
  const rules = benchRules(origin);
  return [...rules.include.flatMap((pattern) => ['--include', pattern]), ...rules.exclude.flatMap((pattern) => ['--exclude', pattern])];
}
