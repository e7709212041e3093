import { ForagerError } from '../../crawler/errors.ts';

/**
 * Runs a benchmark's main: a setup failure Forager raised on purpose (a missing package, a
 * child that failed) is one readable report and exit code 1; anything else is a bug and throws.
 */
export async function runBenchMain(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (!(error instanceof ForagerError)) throw error;
    process.stderr.write(`${error.name} [${error.code}]: ${error.message}\n${JSON.stringify(error.context, null, 2)}\n`);
    process.exitCode = 1;
  }
}
