import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../errors.ts';
import { createServeStoredPages } from '../../serve/stored-pages.ts';
import { startServer } from '../../serve/server.ts';
import { ForagerService } from '../../service/service.ts';
import { integerOption, parseCommandArgs } from '../args.ts';

/** Where collections live unless --dir or --db says otherwise (XDG data directory). */
export function defaultCollectionsDir(): string {
  const data = process.env.XDG_DATA_HOME !== undefined && process.env.XDG_DATA_HOME !== '' ? process.env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(data, 'forager', 'collections');
}

/** `forager serve`: the desktop UI in a browser, over loopback, until SIGINT or SIGTERM. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('serve', argv, {
    db: { type: 'string' },
    dir: { type: 'string' },
    port: { type: 'string' },
  });
  if (values.db !== undefined && values.dir !== undefined) throw new UsageError('serve: give --db FILE or --dir DIR, not both', {});
  const port = integerOption('port', values.port) ?? 0;
  if (port < 0 || port > 65_535) throw new UsageError(`--port must be from 0 to 65535, got ${port}`, { option: 'port' });
  const service = new ForagerService(values.db !== undefined ? { db: values.db } : { dir: values.dir ?? defaultCollectionsDir() });
  const running = await startServer({ service, storedPages: createServeStoredPages(service), port }).catch(async (err: unknown) => {
    await service.close();
    throw new UsageError(`cannot listen on 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`, { port });
  });
  process.stdout.write(`Forager is serving ${(await service.info()).location}\nOpen ${running.url}\nPress Ctrl+C to stop.\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await service.close();
  await running.close();
  return 0;
}
