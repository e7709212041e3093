import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs in strict mode, with its errors turned into one-line UsageErrors. */
export function parseCommandArgs<T extends Options>(command: string, argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UsageError(`${command}: ${message}`, { command });
  }
}

export function integerOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`--${name} must be a whole number, got "${value}"`, { option: name });
  return Number(value);
}

export function numberOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${value}"`, { option: name });
  return n;
}

export function requireOption<T>(command: string, name: string, value: T | undefined): T {
  if (value === undefined || value === '') throw new UsageError(`${command}: --${name} is required`, { option: name });
  return value;
}
