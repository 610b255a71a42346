// Preloaded with `node --import` (test/cli/sizeless-terminal.test.ts): stdout looks as it does on
// a pseudo-terminal that reports no size — a TTY of 0 columns and 0 rows, what
// `script -qec "dualloop run …"` makes where no terminal is around it (a CI job, a recorder) —
// without a system binary to make one.
Object.assign(process.stdout, { isTTY: true, columns: 0, rows: 0 });
