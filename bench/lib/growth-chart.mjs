/**
 * The growth curve as an SVG (docs/performance.md): µs per turn and store bytes written per turn
 * by task index, over one 200-task × 10-turn run on sqliteStore. Two panels sharing the x axis;
 * plain SVG, no library, so the bench writes it wherever it runs.
 */
const WIDTH = 720;
const PANEL = 200;
const MARGIN = { left: 70, right: 20, top: 40, gap: 60, bottom: 40 };

const escapeXml = (text) => String(text).replace(/[&<>"]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[character]);
const niceMax = (value) => {
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(value, 1e-9)));
  return [1, 2, 2.5, 5, 10].map((step) => step * magnitude).find((candidate) => candidate >= value);
};
const label = (value) => (value >= 10_000 ? `${Math.round(value / 1000)}k` : value >= 1000 ? `${(value / 1000).toFixed(1)}k` : String(Math.round(value)));

function panel({ top, title, series, count }) {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const max = niceMax(Math.max(...series.flatMap((line) => line.values.filter(Number.isFinite))));
  const x = (index) => MARGIN.left + (count <= 1 ? 0 : (index / (count - 1)) * plotWidth);
  const y = (value) => top + PANEL - (Math.min(value, max) / max) * PANEL;
  const parts = [`<text x="${MARGIN.left}" y="${top - 10}" font-size="13" font-weight="bold">${escapeXml(title)}</text>`];
  for (let tick = 0; tick <= 4; tick += 1) {
    const value = (max * tick) / 4;
    parts.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value)}" y2="${y(value)}" stroke="#ddd"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${y(value) + 4}" font-size="11" text-anchor="end">${label(value)}</text>`);
  }
  for (let tick = 0; tick <= 4; tick += 1) {
    const index = Math.round(((count - 1) * tick) / 4);
    parts.push(`<text x="${x(index)}" y="${top + PANEL + 16}" font-size="11" text-anchor="middle">${index + 1}</text>`);
  }
  series.forEach((line, order) => {
    const points = line.values.map((value, index) => (Number.isFinite(value) ? `${x(index).toFixed(1)},${y(value).toFixed(1)}` : undefined)).filter(Boolean);
    parts.push(`<polyline fill="none" stroke="${line.color}" stroke-width="1.5" points="${points.join(' ')}"/>`);
    parts.push(`<text x="${WIDTH - MARGIN.right - 200}" y="${top + 14 + order * 15}" font-size="11" fill="${line.color}">${escapeXml(line.name)}</text>`);
  });
  return parts.join('\n');
}

/** `growth`: the growth child's result; `caption`: mode, date and machine, printed under the title. */
export function growthChartSvg(growth, caption) {
  const count = growth.perTask.length;
  const height = MARGIN.top + 2 * PANEL + MARGIN.gap + MARGIN.bottom + 20;
  const second = MARGIN.top + PANEL + MARGIN.gap;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
${panel({ top: MARGIN.top, title: `µs per turn by task — ${count} tasks × ${growth.turnsPerTask} turns, sqliteStore`, series: [
    { name: 'CPU µs/turn', color: '#1f77b4', values: growth.perTask.map((task) => task.cpuUsPerTurn) },
    { name: 'wall µs/turn', color: '#aaaaaa', values: growth.perTask.map((task) => task.usPerTurn) },
  ], count })}
${panel({
  top: second,
  title: 'store bytes written per turn by task',
  series: [
    { name: 'bytes written by the main thread', color: '#d62728', values: growth.perTask.map((task) => task.writtenBytesPerTurn ?? Number.NaN) },
    { name: 'bytes of the rows added', color: '#2ca02c', values: growth.perTask.map((task) => task.rowBytesPerTurn) },
  ],
  count,
})}
<text x="${WIDTH / 2}" y="${height - 12}" font-size="11" text-anchor="middle">task index — ${escapeXml(caption)}</text>
</svg>
`;
}
