// How many of a batch's stored rows belong to each project: errata_pipeline_processed_total is
// counted per project, so an SRE can tell which project's traffic moved.
export function countByProject(rows: ReadonlyArray<{ projectId: number }>): Map<number, number> {
  const counts = new Map<number, number>();
  for (const row of rows) counts.set(row.projectId, (counts.get(row.projectId) ?? 0) + 1);
  return counts;
}
