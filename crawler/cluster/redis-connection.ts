import { Redis } from 'ioredis';
import { ClusterError } from '../errors.ts';
import { redactSecrets, redactUrl, urlPassword } from '../url/redact.ts';

/*
 * Connections to a cluster's Redis. A command (create, status, pause…) fails at once with a
 * clear message when Redis cannot be reached; a worker instead waits and reconnects, its
 * commands queued meanwhile, since nothing it committed to its shards depends on Redis.
 * A --redis URL may hold a password: messages name Redis by host and port only, and anything
 * quoted from ioredis passes through redactRedis.
 */

const COMMAND_CONNECT_TIMEOUT_MS = 3000;
/** Connecting and the first PING: a server that accepts the connection and never answers must not hang a command. */
const COMMAND_READY_TIMEOUT_MS = 5000;
/** Each later Redis command of a command: a Redis that stops answering fails it rather than hang it. */
const COMMAND_TIMEOUT_MS = 10_000;
const MAX_RECONNECT_WAIT_MS = 2000;
/** A worker's connection attempt: bounded, so that a worker that stops waiting for an unroutable Redis ends within seconds. */
const WORKER_CONNECT_TIMEOUT_MS = 5000;
/** Once a worker stops waiting, a PING unanswered this long means a Redis that is connected but silent (stopped, hung): it is dropped. */
const SILENT_REDIS_MS = 2000;

/** HOST:PORT of a Redis URL, for messages: never its password. */
export function redisHost(url: string): string {
  const parsed = URL.parse(url);
  return parsed === null ? redactUrl(url) : `${parsed.hostname}:${parsed.port || '6379'}`;
}

/** `text` without the URL's password, as written in the URL or decoded: for messages that quote ioredis or the URL. */
export function redactRedis(text: string, url: string): string {
  return redactSecrets(text, [URL.parse(url)?.password ?? '', urlPassword(url) ?? '']);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** ioredis's errors: Redis's refusals (ReplyError) and the client's own, by class name, and a connection that closed, timed out or is offline, by message. */
const CLIENT_ERROR_NAMES = /^(Redis|Reply|Parser|Abort|Interrupt|MaxRetriesPerRequest)Error$/;
const CONNECTION_FAILURES = /^(Connection is closed\.|Command timed out|Stream isn't writeable)/;

/** Whether an error is Redis's or the connection's (the user's to fix), not a fault of Forager's own code. */
export function isRedisFailure(err: unknown): err is Error {
  return err instanceof Error && (CLIENT_ERROR_NAMES.test(err.name) || CONNECTION_FAILURES.test(err.message));
}

/** A failure of Redis or of the connection to it, in words and without the password. */
export function redisFailure(url: string, doing: string, err: unknown): ClusterError {
  return new ClusterError(`Redis at ${redisHost(url)} failed while ${doing} (${redactRedis(messageOf(err), url)})`, { redis: redisHost(url) }, { cause: err });
}

/** Whether a --redis value is a Redis URL (redis:// or rediss://). */
export function isRedisUrl(url: string): boolean {
  const protocol = URL.parse(url)?.protocol;
  return protocol === 'redis:' || protocol === 'rediss:';
}

function checkUrl(url: string): void {
  if (!isRedisUrl(url)) throw new ClusterError(`--redis ${redactUrl(url)} is not a Redis URL (expected redis://HOST:PORT)`, { url: redactUrl(url) });
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** A connection for one command: refused, unreachable or silent Redis is an error, now. */
export async function connectForCommand(url: string): Promise<Redis> {
  checkUrl(url);
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: COMMAND_CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // Reported by the catch below (a refused password ends the connection, and connect() says only that); without a listener ioredis would print them too.
  let reason: unknown;
  redis.on('error', (err: Error) => (reason = err));
  try {
    await withDeadline(redis.connect().then(() => redis.ping()), COMMAND_READY_TIMEOUT_MS);
  } catch (err) {
    redis.disconnect();
    throw new ClusterError(`cannot reach Redis at ${redisHost(url)} (${redactRedis(messageOf(reason ?? err), url)}); start it (redis-server --port N) or check --redis`, { redis: redisHost(url) }, { cause: err });
  }
  return redis;
}

export interface WorkerConnectionEvents {
  /** Redis went away (once per outage). */
  lost(why: string): void;
  /** Redis answers again. */
  back(): void;
}

/** A worker's connection, and the ways to stop waiting for its Redis. */
export interface WorkerConnection {
  readonly redis: Redis;
  /**
   * From now on an outage ends the connection instead of being waited out, and commands
   * waiting for an unreachable or silent Redis fail (at its next reconnection attempt, or when
   * a PING goes unanswered: within seconds): a worker that leaves must not wait for Redis
   * forever. A connection to a Redis that answers is left alone.
   */
  stopWaiting(): void;
  /** Ends the connection now, whatever Redis is doing (one that accepts and never answers included): every command waiting fails. */
  cut(): void;
  /** Closes the connection: the worker is done with it. */
  close(): void;
  /** Whether the connection has ended (given up by stopWaiting, cut, or closed). */
  readonly ended: boolean;
}

/** A worker's connection: it reconnects for as long as it takes, and its commands wait meanwhile, until told to stop waiting. */
export function connectForWorker(url: string, events: WorkerConnectionEvents): WorkerConnection {
  checkUrl(url);
  let waiting = true;
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    connectTimeout: WORKER_CONNECT_TIMEOUT_MS,
    // No number: ioredis ends the connection and fails every command still queued.
    retryStrategy: (attempt) => (waiting ? Math.min(attempt * 200, MAX_RECONNECT_WAIT_MS) : null),
    enableOfflineQueue: true,
  });
  let down = false;
  const lost = (why: string): void => {
    if (down || !waiting) return;
    down = true;
    events.lost(redactRedis(why, url));
  };
  redis.on('error', (err: Error) => lost(err.message));
  // A server that shuts down closes the connection without an error.
  redis.on('close', () => lost('connection closed'));
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    events.back();
  });
  const cut = (): void => {
    waiting = false;
    // While it waits for its next attempt, disconnect() would only cancel the attempt and leave
    // the queued commands waiting for good; the attempt itself, refused a retry, fails them.
    if (redis.status !== 'reconnecting' && redis.status !== 'end') redis.disconnect();
  };
  // A connection that stays open to a Redis that no longer answers never closes by itself.
  const dropWhenSilent = (): void => {
    const probe = (): void => {
      if (redis.status === 'end') return clearInterval(timer);
      if (redis.status === 'ready') withDeadline(redis.ping(), SILENT_REDIS_MS).catch(cut);
    };
    const timer = setInterval(probe, SILENT_REDIS_MS).unref();
    probe();
  };
  return {
    redis,
    stopWaiting: () => {
      if (!waiting) return;
      waiting = false;
      // An attempt under way could take the whole connect timeout, or never end on a server that does not answer.
      if (redis.status === 'connecting' || redis.status === 'connect') redis.disconnect();
      dropWhenSilent();
    },
    cut,
    close: () => {
      waiting = false;
      if (redis.status !== 'end') redis.disconnect();
    },
    get ended() {
      return redis.status === 'end';
    },
  };
}
