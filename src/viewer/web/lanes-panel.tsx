import { formatDuration } from '../model/gauges.js';
import { laneFraction, type Lanes } from '../model/lanes.js';
import { reasonClass } from './stop-tree.js';

interface Props {
  readonly lanes: Lanes;
  /** Moves the replay to just after the event at `position`. */
  readonly onSelect: (position: number) => void;
}

const percent = (fraction: number) => `${(fraction * 100).toFixed(3)}%`;

/**
 * A graph run's branches, one lane each, on one time axis: a bar from a task's start to its end
 * (coloured by its stop; still growing while it runs), a tick per turn and tool call. Bars that
 * overlap ran at once. Clicking a bar or a tick replays the run to that point.
 */
export function LanesPanel({ lanes, onSelect }: Props) {
  const at = (time: number) => percent(laneFraction(lanes, time));
  return (
    <section class="lanes">
      <h2>
        branches <small>{lanes.lanes.length} lanes · {formatDuration(lanes.to - lanes.from)}</small>
      </h2>
      <ol>
        {lanes.lanes.map((lane) => (
          <li class="lane" key={lane.taskId} data-lane={lane.taskId}>
            <span class="lane-name" title={lane.taskId}>
              {lane.taskId}
            </span>
            <span class="lane-track">
              {lane.spans.map((span) => (
                <button
                  type="button"
                  key={span.startPosition}
                  class={`lane-span ${span.stop === undefined ? 'running' : reasonClass(span.stop.reason)}`}
                  style={{ left: at(span.from), width: percent(Math.max(0, laneFraction(lanes, span.to) - laneFraction(lanes, span.from))) }}
                  data-from={span.from - lanes.from}
                  data-to={span.to - lanes.from}
                  data-reason={span.stop?.reason ?? ''}
                  title={`${lane.taskId}: +${formatDuration(span.from - lanes.from)} → +${formatDuration(span.to - lanes.from)}${span.stop === undefined ? ' (running)' : ` · ${span.stop.reason}`}`}
                  onClick={() => onSelect((span.endPosition ?? span.startPosition) + 1)}
                />
              ))}
              {lane.marks.map((mark) => (
                <button type="button" key={mark.position} class={`lane-mark ${mark.kind}`} style={{ left: at(mark.at) }} title={mark.label} onClick={() => onSelect(mark.position + 1)} />
              ))}
              <span class="lane-cursor" style={{ left: at(lanes.cursorAt) }} />
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
