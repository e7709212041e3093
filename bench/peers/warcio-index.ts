/**
 * The peer for the export benchmark: warcio.js's own CDX indexer (what its `warcio.js
 * cdx-index` command runs) reading a WARC back, record by record, decompressing and
 * parsing each. Prints one JSON line: { tool, records, seconds, recordsPerSecond, peakRssMB }.
 *
 *   node bench/peers/warcio-index.ts --warc FILE
 */
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { CDXIndexer } from 'warcio';
import { peakRssMB } from '../support/peak-rss.ts';

const { values } = parseArgs({ options: { warc: { type: 'string' } } });
if (values.warc === undefined) throw new Error('--warc FILE is required');

const started = performance.now();
const indexer = new CDXIndexer({ format: 'cdxj', all: true });
let records = 0;
for await (const _entry of indexer.iterIndex([{ filename: values.warc, reader: createReadStream(values.warc) }])) records++;
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ tool: 'warcio.js CDXIndexer (all records)', records, seconds, recordsPerSecond: records / seconds, peakRssMB: peakRssMB() }));
