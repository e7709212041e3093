import { readdirSync, readFileSync } from 'node:fs';

/** The pid and every descendant of it (a crawler and the browser processes it started). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after its last ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

/**
 * The proportional set size of a process tree in MB: each page shared by several of its
 * processes (a browser's renderers share much) is counted once across them, as RSS would not.
 */
export function treePssMb(root: number): number | undefined {
  let kB = 0;
  let seen = false;
  for (const pid of processTree(root)) {
    try {
      const pss = /^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1];
      if (pss !== undefined) {
        kB += Number(pss);
        seen = true;
      }
    } catch {
      // Gone, or not ours to read.
    }
  }
  return seen ? kB / 1024 : undefined;
}
