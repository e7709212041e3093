/** Reading a ZIP the exports wrote (WACZ, a zipped mirror) back, for tests. */
import { openPromise } from 'yauzl';

/** Every entry's bytes, by file name. */
export async function zipEntries(path: string): Promise<Map<string, Buffer>> {
  const zip = await openPromise(path, { lazyEntries: true });
  const entries = new Map<string, Buffer>();
  try {
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      entries.set(entry.fileName, Buffer.concat(chunks));
    }
  } finally {
    zip.close();
  }
  return entries;
}

/** One entry's bytes; throws when the ZIP has no such entry. */
export async function zipEntry(path: string, name: string): Promise<Buffer> {
  const entry = (await zipEntries(path)).get(name);
  if (entry === undefined) throw new Error(`${name} is not in ${path}`);
  return entry;
}
