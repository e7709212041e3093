/**
 * The real sites of the focus benchmark: Debian documentation packages served over
 * loopback by nginx. Three are manuals in many languages: debian-reference as Debian
 * ships it (10 languages in one folder, the language in each file name), and the
 * installation guide (19 languages) and aptitude's manual (9), each gathered into one
 * site with one folder per language.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForagerError } from '../../crawler/errors.ts';

export interface BenchSite {
  key: string;
  /** Debian packages that must be installed. */
  packages: string[];
  /** The folder nginx serves, made when the site is assembled. */
  root(): string;
  /** The seed page, relative to the root. */
  entry: string;
}

/**
 * A site made of one folder per language, each a symlink to the folder Debian installs,
 * and a generated index.html that links to each language's first page (as a real
 * multilingual site's language chooser does). Made once per process, removed at exit.
 */
function languageFolders(name: string, title: string, folders: readonly (readonly [lang: string, dir: string])[], entry: string): () => string {
  let root: string | undefined;
  return () => {
    if (root !== undefined) return root;
    const made = mkdtempSync(join(tmpdir(), `forager-${name}-`));
    // nginx's workers drop to an unprivileged user when we run as root.
    chmodSync(made, 0o755);
    const items: string[] = [];
    for (const [lang, dir] of folders) {
      symlinkSync(dir, join(made, lang));
      items.push(`<li><a href="${lang}/${entry}" hreflang="${lang}">${lang}</a></li>`);
    }
    writeFileSync(join(made, 'index.html'), `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><ul>${items.join('')}</ul></body></html>\n`);
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    root = made;
    return made;
  };
}

const INSTALL_GUIDE = '/usr/share/doc/installation-guide-amd64';
const INSTALL_GUIDE_LANGUAGES = ['ca', 'cs', 'da', 'de', 'el', 'en', 'es', 'fr', 'id', 'it', 'ja', 'ko', 'nl', 'pt', 'ro', 'ru', 'sv', 'vi', 'zh_CN'];
const APTITUDE_DOC = '/usr/share/doc/aptitude/html';
const APTITUDE_LANGUAGES = ['cs', 'en', 'es', 'fi', 'fr', 'it', 'ja', 'nl', 'ru'];

const fixed = (path: string) => () => path;

export const BENCH_SITES: readonly BenchSite[] = [
  { key: 'python', packages: ['python3.11-doc'], root: fixed('/usr/share/doc/python3.11/html'), entry: 'index.html' },
  { key: 'git', packages: ['git-doc'], root: fixed('/usr/share/doc/git/html'), entry: 'git.html' },
  { key: 'django', packages: ['python-django-doc'], root: fixed('/usr/share/doc/python-django-doc/html'), entry: 'index.html' },
  { key: 'scipy', packages: ['python-scipy-doc'], root: fixed('/usr/share/doc/python-scipy-doc/html'), entry: 'index.html' },
  { key: 'postgres', packages: ['postgresql-doc-15'], root: fixed('/usr/share/doc/postgresql-doc-15/html'), entry: 'index.html' },
  { key: 'sqlite', packages: ['sqlite3-doc'], root: fixed('/usr/share/doc/sqlite3'), entry: 'index.html' },
  { key: 'debref', packages: ['debian-reference'], root: fixed('/usr/share/doc/debian-reference-common/docs'), entry: 'index.html' },
  {
    key: 'install',
    packages: ['installation-guide-amd64'],
    root: languageFolders('install-guide', 'Debian GNU/Linux Installation Guide', INSTALL_GUIDE_LANGUAGES.map((l) => [l, `${INSTALL_GUIDE}/${l}`]), 'index.html'),
    entry: 'index.html',
  },
  {
    key: 'aptitude',
    packages: APTITUDE_LANGUAGES.map((l) => `aptitude-doc-${l}`),
    root: languageFolders('aptitude-doc', 'aptitude user\'s manual', APTITUDE_LANGUAGES.map((l) => [l, `${APTITUDE_DOC}/${l}`]), 'index.html'),
    entry: 'index.html',
  },
];

/** The packages these sites need that dpkg does not report as installed. */
export function missingPackages(sites: readonly BenchSite[]): string[] {
  const wanted = [...new Set(sites.flatMap((s) => s.packages))];
  const query = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\\n', ...wanted], { encoding: 'utf8' });
  const installed = new Set(
    (query.stdout ?? '').split('\n').filter((line) => line.endsWith(' installed')).map((line) => line.split(' ')[0]),
  );
  return wanted.filter((pkg) => !installed.has(pkg));
}

export function benchSite(key: string): BenchSite {
  const site = BENCH_SITES.find((s) => s.key === key);
  if (site === undefined) throw new ForagerError('BENCH_SETUP', `unknown bench site "${key}"`, { key });
  return site;
}
