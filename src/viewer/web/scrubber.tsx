import { useEffect, useState } from 'preact/hooks';
import { formatDuration } from '../model/gauges.js';

interface Props {
  readonly cursor: number;
  readonly total: number;
  /** Offset of the event at the cursor from the run's start. */
  readonly offsetMs: number | undefined;
  readonly follow: boolean;
  readonly ended: boolean;
  readonly onMove: (cursor: number) => void;
  readonly onFollow: () => void;
}

const PLAY_STEP_MS = 120;

/** Replay controls: a scrubber over the run's events, step and play buttons, and back to live. */
export function Scrubber({ cursor, total, offsetMs, follow, ended, onMove, onFollow }: Props) {
  const [playing, setPlaying] = useState(false);
  useEffect(() => {
    if (!playing) return undefined;
    if (cursor >= total) {
      setPlaying(false);
      return undefined;
    }
    const timer = setTimeout(() => onMove(cursor + 1), PLAY_STEP_MS);
    return () => clearTimeout(timer);
  }, [playing, cursor, total]);
  const move = (to: number) => {
    setPlaying(false);
    onMove(Math.max(0, Math.min(total, to)));
  };
  const togglePlay = () => {
    if (playing) return setPlaying(false);
    if (cursor >= total) onMove(0);
    setPlaying(true);
  };
  return (
    <section class="scrubber">
      <button type="button" onClick={() => move(0)} title="to the start" aria-label="to the start">|◀</button>
      <button type="button" onClick={() => move(cursor - 1)} title="one event back" aria-label="one event back">◀</button>
      <button type="button" onClick={togglePlay} aria-label={playing ? 'pause' : 'play'}>
        {playing ? '||' : '▶'}
      </button>
      <button type="button" onClick={() => move(cursor + 1)} title="one event forward" aria-label="one event forward">▶|</button>
      <input
        type="range"
        data-testid="scrubber"
        aria-label="replay position"
        min={0}
        max={total}
        step={1}
        value={cursor}
        onInput={(event) => move(Number((event.target as HTMLInputElement).value))}
      />
      <span class="position" data-testid="position">
        event {cursor} / {total}
        {offsetMs === undefined ? '' : ` · +${formatDuration(offsetMs)}`}
      </span>
      <button type="button" class={follow ? 'live on' : 'live'} onClick={() => {
          setPlaying(false);
          onFollow();
        }} title={ended ? 'jump to the end' : 'follow the run live'}>
        {ended ? 'end' : 'live'}
      </button>
    </section>
  );
}
