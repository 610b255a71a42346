/** Submits runs through `submitRun`, `parallel` calls at a time; resolves with the ms it took. */
export async function submitRuns(submitRun, place, runIds, { parallel, tasks }) {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < runIds.length) {
      const runId = runIds[next];
      next += 1;
      await submitRun({ ...place, workflow: 'bench', tasks, runId });
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, runIds.length) }, lane));
  return performance.now() - started;
}
