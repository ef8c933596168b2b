// What the fuzz suites assert of a run: no invariant broke, every case ran, and the happy path
// was walked too (a good share accepted, events and log records stored).
import { expect } from 'vitest';
import type { FuzzReport } from './fuzz-ingest.ts';

export function expectInvariantsHeld(report: FuzzReport, cases: number): void {
  expect(report.violations).toEqual([]);
  expect(report.cases).toBe(cases);
  expect(report.byStatus['200']).toBeGreaterThan(cases / 4);
  expect(report.ledger.error!.stored).toBeGreaterThan(0);
  expect(report.ledger.log_item!.stored).toBeGreaterThan(0);
}
