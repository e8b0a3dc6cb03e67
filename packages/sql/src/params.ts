/** One statement and its bound values, in the order the driver numbers them. */
export interface Statement {
  /** The SQL text, with a placeholder for every value. */
  readonly sql: string;
  /** The bound values, in placeholder order. */
  readonly params: readonly unknown[];
}

/**
 * Writes a value's placeholder: `?` (MySQL, SQLite), `$1` (PostgreSQL), `@p1` (SQL Server).
 * `index` counts from 1; `value` lets a dialect type the placeholder (`$1::timestamptz`).
 */
export type Placeholder = (index: number, value: unknown) => string;

/** `?`, for drivers that number placeholders by position. */
export const positional: Placeholder = () => '?';

/**
 * Collects the bound values of one statement while its text is written left to right, so each
 * placeholder lands in the order the driver numbers them. Every value of every statement goes
 * through {@link bind}: no value is ever written into SQL text.
 */
export class Params {
  /** The values bound so far, in placeholder order. */
  readonly values: unknown[] = [];

  constructor(private readonly placeholder: Placeholder = positional) {}

  /** Binds a value; answers its placeholder. */
  bind(value: unknown): string {
    this.values.push(value);
    return this.placeholder(this.values.length, value);
  }

  /** Binds several values; answers their placeholders joined by `, `. */
  list(values: Iterable<unknown>): string {
    return Array.from(values, (v) => this.bind(v)).join(', ');
  }

  /** The statement written with these values. */
  statement(sql: string): Statement {
    return { sql, params: this.values };
  }
}
