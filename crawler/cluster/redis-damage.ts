import { ClusterError } from '../errors.ts';

/*
 * What a worker reads from Redis is input like any other: a neighbour on the same Redis (a
 * `SET` or `LPUSH` on the wrong key, a hand edit) can leave a key of a cluster holding what
 * its workers never wrote. A worker that finds one says which key, what it should hold and
 * how to set it right, and goes on with whatever does not need that key.
 */

/** A key of the cluster that does not hold what the workers keep there. */
export interface KeyDamage {
  key: string;
  /** The partition whose work the key holds up, if it belongs to one. */
  partition?: number;
  /** What the workers keep there ("a stream", "a whole number of pages"). */
  expected: string;
  /** What Redis said about it, or what was read. */
  found: string;
  /** What the worker does until it is repaired. */
  meanwhile: string;
  /** How to set that key right (the whole cluster can always be deleted instead). */
  repair: string;
}

export type DamageReport = (damage: KeyDamage) => void;

/**
 * The error code the cluster's Lua scripts answer with when a key they read is damaged:
 * "DAMAGED <n> <finding>", n the damaged key's place in the script's KEYS (from 1).
 */
export const DAMAGED_REPLY = 'DAMAGED';

/** Lua for a script: returns (from the script) the DAMAGED error of its `n`th key, `finding` a Lua expression. */
export function luaDamaged(n: number, finding: string): string {
  return `return redis.error_reply('${DAMAGED_REPLY} ${n} ' .. ${finding})`;
}

/** Lua: a string read from Redis quoted for a finding, at most 40 characters of it. */
export function luaQuoted(variable: string): string {
  return `string.format('%q', string.sub(${variable}, 1, 40))`;
}

/**
 * Whether Redis refused a command for what one key holds, not for the state of Redis
 * (away, loading, out of memory): those errors are the key's, and retrying will not help.
 */
export function isKeyDamage(err: unknown): err is Error {
  return err instanceof Error && /^(WRONGTYPE|NOGROUP|DAMAGED)\b|^ERR value is not an integer/.test(err.message);
}

const SCRIPT_FINDING = new RegExp(`^${DAMAGED_REPLY} (\\d+) (.*)$`, 's');

/** Which of a script's KEYS (from 1) its DAMAGED error names, or undefined for any other error. */
export function damagedKeyIndex(err: Error): number | undefined {
  const match = SCRIPT_FINDING.exec(err.message);
  return match === null ? undefined : Number(match[1]);
}

/** What was found, for KeyDamage.found: a script's own finding, else Redis's words without the script's hash and line. */
export function foundBy(err: Error): string {
  const match = SCRIPT_FINDING.exec(err.message);
  if (match !== null) return match[2] as string;
  return `Redis says: ${err.message.replace(/ script: \w+, on @\w+:\d+\.?$/, '')}`;
}

/** The default for a reader told of no other way: the damage as a ClusterError, thrown. */
export function throwDamage(cluster: string): DamageReport {
  return (damage) => {
    throw new ClusterError(describeDamage(damage, cluster), { key: damage.key });
  };
}

/** The damage as one line for the user: the key, what is wrong, what happens meanwhile, the repair. */
export function describeDamage(damage: KeyDamage, cluster: string): string {
  return `Redis key ${damage.key} is damaged: it should hold ${damage.expected}, but ${damage.found}. Meanwhile ${damage.meanwhile}. ` +
    `To repair: ${damage.repair}, or start the crawl over with \`forager cluster delete --name ${cluster}\` (the shards in each worker's --dir stay)`;
}
