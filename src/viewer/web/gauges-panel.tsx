import { formatGaugeValue, gaugeRatio, type Gauge } from '../model/gauges.js';

/** Every bound with how much of it is spent; amber from 75 %, red when reached. */
export function GaugesPanel({ gauges, taskTitle }: { readonly gauges: readonly Gauge[]; readonly taskTitle: string }) {
  const group = (scope: Gauge['scope'], title: string) => (
    <div class="gauge-group" data-scope={scope}>
      <h3>{title}</h3>
      {gauges.filter((gauge) => gauge.scope === scope).map(gaugeRow)}
    </div>
  );
  return (
    <section class="gauges">
      {group('task', taskTitle)}
      {group('run', 'run')}
    </section>
  );
}

function gaugeRow(gauge: Gauge) {
  const ratio = gaugeRatio(gauge);
  const level = ratio === undefined ? 'unbounded' : ratio >= 1 ? 'reached' : ratio >= 0.75 ? 'near' : 'ok';
  const text = `${formatGaugeValue(gauge, gauge.value)}${gauge.limit === undefined ? '' : ` / ${formatGaugeValue(gauge, gauge.limit)}`}`;
  return (
    <div class={`gauge ${level}`} data-gauge={gauge.id} data-value={gauge.value} data-limit={gauge.limit ?? ''} key={gauge.id} title={`${gauge.bound}${gauge.limit === undefined ? ' (not set)' : ''}`}>
      <span class="gauge-label">{gauge.label}</span>
      <span class="gauge-bar">
        <span class="gauge-fill" style={{ width: `${Math.round((ratio ?? 0) * 100)}%` }} />
      </span>
      <span class="gauge-value">{text}</span>
    </div>
  );
}
