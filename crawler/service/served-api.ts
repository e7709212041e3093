import type { EventEmitter } from 'node:events';
import type { ForagerApi } from '../protocol/api.ts';
import type { ForagerServiceEvents } from './service.ts';

/**
 * What a transport serves: the API, its pushed events and the files of finished exports.
 * ForagerService (collections, crawls) and ShardService (a cluster's shards, read-only) both are.
 */
export type ServedApi = ForagerApi &
  Pick<EventEmitter<ForagerServiceEvents>, 'on' | 'off'> & {
    exportFile(exportId: string): { path: string; fileName: string } | undefined;
    close(): Promise<void>;
  };
