import { analyseResponse } from './analyse-response.ts';
import { serveAnalyses } from './worker-pool.ts';

/** Worker side of ParsePool. */
serveAnalyses(analyseResponse);
