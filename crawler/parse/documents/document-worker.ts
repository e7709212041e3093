/*
 * Worker side of DocumentPool. The allocation cap goes in before pdf.js is loaded, so that
 * every buffer pdf.js makes, its module-level ones too, is made under it.
 */
import { serveAnalyses } from '../worker-pool.ts';
import { installAllocationCap } from './allocation-cap.ts';

installAllocationCap();
const { analyseDocument } = await import('./analyse-document.ts');
serveAnalyses(analyseDocument);
