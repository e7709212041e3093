/*
 * The lines of the workers' logs worth a reader's attention. A worker logs its routine
 * (joining, taking and giving up partitions, the end of the crawl) beside anything that went
 * wrong or slowed it (errors, lost leases, back-pressure); the bench prints the latter, each
 * kind once with how often it came, numbers masked so that one kind reads as one line.
 */

const ROUTINE = [/joined cluster/, /took \d+ partition/, /gave up \d+ partition/, /finished its crawl/, /the crawl is finished/];

export function notableLines(logs: readonly string[]): string[] {
  const counts = new Map<string, { example: string; count: number }>();
  for (const log of logs) {
    for (const raw of log.split('\n')) {
      const line = raw.replace(/^forager worker: /, '').trim();
      if (line === '' || ROUTINE.some((pattern) => pattern.test(line))) continue;
      // Worker ids (host-pid-hex) and numbers differ from line to line of one kind.
      const kind = line.replace(/\S+-\d+-[0-9a-f]{6}\b/g, 'W').replace(/\d+/g, 'N');
      const entry = counts.get(kind);
      if (entry === undefined) counts.set(kind, { example: line, count: 1 });
      else entry.count++;
    }
  }
  return [...counts.values()].map(({ example, count }) => (count > 1 ? `${example} (×${count})` : example));
}
