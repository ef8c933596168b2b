// A parameterized statement as one exchange with PGlite's Postgres: Bind, Describe, Execute and
// Sync in one message, with the statement parsed once and kept under a name. PGlite's own
// query() parses and plans every statement afresh and makes six exchanges of it, one per
// message, each a pass through its WebAssembly loop and the JavaScript around it; for the
// dozen small statements of a quiet server's batch that parsing and planning was most of the
// database's CPU (docs/benchmarks.md, 2026-11-30 (fifth)). Parameters go as text with their types
// left to Postgres to infer from the statement, as the `pg` driver sends them to a real
// Postgres in the distributed roles: the same SQL, the same inference, in both modes.
import { parse, protocol, types, type PGlite } from '@electric-sql/pglite';
import { changesShape, worthPreparing } from '../postgres/preparable.ts';
import type { SqlResult } from '../postgres/sql-client.ts';

/**
 * Statements kept prepared at most. Texts vary with a batch's row count (multi-row VALUES), so
 * the least recently used are closed past this; each holds a parse tree and, from its sixth
 * run, Postgres's generic plan when that is estimated no dearer than planning each run.
 */
const MAX_PREPARED = 100;

type WireValue = string | ArrayBufferView | null;

/** One PGlite session's prepared statements: a name for each text, and the names to close. */
export class PreparedStatements {
  private readonly names = new Map<string, string>();
  private closing: string[] = [];
  private made = 0;

  /** The name `sql` is prepared under, and whether this exchange must parse it first. */
  nameFor(sql: string): { name: string; parse: boolean } {
    const known = this.names.get(sql);
    if (known !== undefined) {
      // Map order is the eviction order: a statement used again moves to its end.
      this.names.delete(sql);
      this.names.set(sql, known);
      return { name: known, parse: false };
    }
    // Never reused: a name whose parse was refused is closed like any other, harmlessly.
    const name = `errata_${++this.made}`;
    this.names.set(sql, name);
    if (this.names.size > MAX_PREPARED) this.forget(this.names.keys().next().value!);
    return { name, parse: true };
  }

  forget(sql: string): void {
    const name = this.names.get(sql);
    if (name === undefined) return;
    this.names.delete(sql);
    this.closing.push(name);
  }

  /**
   * Forgets every statement. A prepared statement's result columns are fixed when it is parsed:
   * after DDL changes a table, Postgres refuses to run one that read it ("cached plan must not
   * change result type"). Statements after DDL in a transaction run unprepared
   * (pglite-client.ts), so a rollback of that DDL leaves none prepared against the undone shape.
   */
  forgetAll(): void {
    for (const sql of [...this.names.keys()]) this.forget(sql);
  }

  /** Names to close in the next exchange, taken once. */
  takeClosing(): string[] {
    const names = this.closing;
    this.closing = [];
    return names;
  }
}

/** How one exchange runs its statement. */
export interface ExchangeOptions {
  /** PGlite's own option: sync its files after the exchange (a statement outside a transaction). */
  syncToFs: boolean;
  /** False runs even a preparable statement unnamed. */
  prepare: boolean;
  /**
   * Keeps a statement of more than MAX_PREPARED_PARAMETERS prepared (QueryOptions.keepPrepared);
   * nothing when `prepare` is false or the statement is not DML (preparable.ts).
   */
  keepPrepared?: boolean;
}

/**
 * Runs `sql` with `params` (already storable: sql-client.ts) as one exchange; the caller holds
 * PGlite's locks.
 */
export async function queryInOneExchange<T>(
  db: PGlite,
  statements: PreparedStatements,
  sql: string,
  params: readonly unknown[],
  { syncToFs, prepare, keepPrepared = false }: ExchangeOptions,
): Promise<SqlResult<T>> {
  const { serialize } = protocol;
  // Serialized first: a value that cannot be (an invalid date) throws before any name is taken.
  const values = params.map(wireValue);
  const preparable = prepare && worthPreparing(sql, params.length, keepPrepared);
  if (changesShape(sql)) statements.forgetAll();
  const statement = preparable ? statements.nameFor(sql) : { name: '', parse: true };
  const message = Buffer.concat([
    ...statements.takeClosing().map((name) => serialize.close({ type: 'S', name })),
    ...(statement.parse ? [serialize.parse({ name: statement.name, text: sql, types: [] })] : []),
    serialize.bind({ statement: statement.name, values }),
    serialize.describe({ type: 'P' }),
    serialize.execute({}),
    serialize.sync(),
  ]);
  try {
    // Throws the first error Postgres answered, after it has read the whole message: the Sync
    // at its end has already brought the session back to idle (or to an aborted transaction,
    // which the transaction's ROLLBACK ends), as after PGlite's query().
    const messages = await db.execProtocolStream(message, { syncToFs });
    const result = parse.parseResults(messages, db.parsers)[0]!;
    return { rows: result.rows as T[], affectedRows: result.affectedRows ?? 0 };
  } catch (error) {
    // Parsed again next time: a first parse may have been refused, and a statement that failed
    // may name what changed by a path the DDL check does not see (a DO block, a function).
    if (preparable) statements.forget(sql);
    throw error;
  }
}

/**
 * A parameter as text, as `pg` writes it (its utils.prepareValue): dates in ISO, arrays as array
 * literals, objects as JSON. Arrays as the stores pass them: of one dimension, of text, numbers,
 * booleans, dates or JSON text (PGlite's serializer takes an array as nested from its first
 * element alone).
 */
function wireValue(value: unknown): WireValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return types.arraySerializer(value, elementText, 0);
  if (ArrayBuffer.isView(value)) return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function elementText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
