import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** A value that reads as a negative number: `-1`, `-0.5`, `-.5`. */
const NEGATIVE_NUMBER = /^-\.?\d/;

/** The option a long flag without an inline value (`--max-pages`, not `--max-pages=3`) names, if it takes a value. */
function valueOptionOf(arg: string, options: Options): string | undefined {
  if (!arg.startsWith('--') || arg.includes('=')) return undefined;
  const name = arg.slice(2);
  return Object.hasOwn(options, name) && options[name]?.type === 'string' ? name : undefined;
}

/**
 * The arguments as parseArgs should read them. parseArgs refuses a value starting with a dash
 * as "ambiguous": a negative number is joined to its option (`--max-pages=-1`), so that the
 * option's own check says what the value must be; any other dash-started value is refused here
 * in words that say how to give it.
 */
function withDashValuesJoined(command: string, argv: string[], options: Options): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return [...args, ...argv.slice(i)];
    const next = argv[i + 1];
    const name = valueOptionOf(arg, options);
    if (name === undefined || next === undefined || !next.startsWith('-') || next === '-') {
      args.push(arg);
      continue;
    }
    if (!NEGATIVE_NUMBER.test(next)) {
      throw new UsageError(`${command}: --${name} needs a value, but ${next} follows it; write --${name}=${next} if that is the value`, { command, option: name });
    }
    args.push(`${arg}=${next}`);
    i++;
  }
  return args;
}

/** node:util parseArgs in strict mode, with its errors turned into one-line UsageErrors. */
export function parseCommandArgs<T extends Options>(command: string, argv: string[], options: T, allowPositionals = false) {
  const args = withDashValuesJoined(command, argv, options);
  try {
    return parseArgs({ args, options, strict: true, allowPositionals });
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UsageError(`${command}: ${message}`, { command });
  }
}

/** The inclusive limits of a numeric option. */
export interface Bounds {
  min?: number;
  max?: number;
}

/** What a value within `bounds` is, in words: "a whole number from 1 to 500", "a number, 0 or more". */
function boundsRule(kind: string, { min, max }: Required<Bounds>, unbounded: Required<Bounds>): string {
  const hasMin = min > unbounded.min;
  const hasMax = max < unbounded.max;
  if (hasMin && hasMax) return `${kind} from ${min} to ${max}`;
  if (hasMin) return `${kind}, ${min} or more`;
  if (hasMax) return `${kind}, ${max} or less`;
  return kind;
}

const SAFE_INTEGERS: Required<Bounds> = { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
const FINITE_NUMBERS: Required<Bounds> = { min: -Number.MAX_VALUE, max: Number.MAX_VALUE };
const WHOLE_NUMBER = /^[+-]?\d+$/;
const DECIMAL_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/**
 * A whole-number option within `bounds` (by default from 0 to Number.MAX_SAFE_INTEGER, so that
 * every accepted value is exact); anything else is a UsageError naming the option and its range.
 */
export function integerOption(name: string, value: string | undefined, bounds: Bounds = {}): number | undefined {
  if (value === undefined) return undefined;
  const limits = { min: Math.max(bounds.min ?? 0, SAFE_INTEGERS.min), max: Math.min(bounds.max ?? SAFE_INTEGERS.max, SAFE_INTEGERS.max) };
  const text = value.trim();
  const n = Number(text);
  if (!WHOLE_NUMBER.test(text) || n < limits.min || n > limits.max) {
    throw new UsageError(`--${name} must be ${boundsRule('a whole number', limits, SAFE_INTEGERS)}, got "${value}"`, { option: name });
  }
  return n;
}

/** A decimal number option within `bounds` (by default any finite number). */
export function numberOption(name: string, value: string | undefined, bounds: Bounds = {}): number | undefined {
  if (value === undefined) return undefined;
  const limits = { min: bounds.min ?? FINITE_NUMBERS.min, max: bounds.max ?? FINITE_NUMBERS.max };
  const text = value.trim();
  const n = Number(text);
  if (!DECIMAL_NUMBER.test(text) || !Number.isFinite(n) || n < limits.min || n > limits.max) {
    throw new UsageError(`--${name} must be ${boundsRule('a number', limits, FINITE_NUMBERS)}, got "${value}"`, { option: name });
  }
  return n;
}

export function requireOption<T>(command: string, name: string, value: T | undefined): T {
  if (value === undefined || value === '') throw new UsageError(`${command}: --${name} is required`, { option: name });
  return value;
}
