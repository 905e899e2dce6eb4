import type { SpinMode } from './spin-rules';

/**
 * How to shoot a spin set, or film one, short enough to read at the turntable: a side view of the
 * set-up (a product on a turntable, a phone on a tripod at two heights) and a few lines; the
 * lines follow what the merchant chose to send, photos or videos.
 */
export function SpinGuide({ mode = 'photos' }: { mode?: SpinMode }) {
  const videos = mode === 'videos';
  return (
    <section className="card spin-guide" aria-labelledby="spin-guide-title">
      <h2 id="spin-guide-title" className="spin__title">
        {videos ? 'How to film a spin video' : 'How to shoot a spin set'}
      </h2>
      <div className="spin-guide__body">
        <SpinDiagram />
        {videos ? (
          <ul className="spin-guide__list" data-testid="spin-guide-video">
            <li>
              Product on a <strong>turntable</strong>, phone on a <strong>stand or tripod</strong>, a plain backdrop and soft, even light.
            </li>
            <li>
              <strong>One video per camera height,</strong> up to three: level with the middle of the product, then about 30° above, then
              about 55° above.
            </li>
            <li>
              <strong>Film one full turn and a little past the start,</strong> 10 to 20 seconds, turning the table slowly and evenly.
            </li>
            <li>Keep the whole product in frame all the way round.</li>
            <li>Don't move, zoom or cut while filming; only the table turns.</li>
            <li>
              The table may turn <strong>either way round,</strong> as long as it turns the same way in every video.
            </li>
            <li>
              <strong>Lowest first:</strong> list the videos from the lowest camera to the highest (move them up or down below).
            </li>
          </ul>
        ) : (
          <ul className="spin-guide__list" data-testid="spin-guide-photos">
            <li>
              Product on a <strong>turntable</strong>, phone on a <strong>tripod</strong>, a plain backdrop and soft, even light.
            </li>
            <li>
              <strong>Two camera heights:</strong> one level with the middle of the product, one about 30° above it.
            </li>
            <li>
              <strong>One full turn per height,</strong> 12–36 photos per turn, turning the table by even steps.
            </li>
            <li>Keep the whole product in frame in every photo.</li>
            <li>Don't move the camera during a turn; only the table turns.</li>
            <li>
              The table may turn <strong>either way round,</strong> as long as it turns the same way at every height.
            </li>
            <li>Name the files in shooting order (P01, P02 …): they are sorted by name.</li>
          </ul>
        )}
      </div>
    </section>
  );
}

/** Side view: turntable and product on the left, the tripod's two camera heights on the right. */
function SpinDiagram() {
  return (
    <svg
      className="spin-guide__diagram"
      viewBox="0 0 240 150"
      role="img"
      aria-label="A product on a turntable; a phone on a tripod shoots it level with its middle, and again from about 30 degrees above"
    >
      {/* backdrop */}
      <rect x="4" y="8" width="120" height="124" rx="6" className="spin-guide__backdrop" />
      {/* turntable with its turning arrow */}
      <ellipse cx="64" cy="120" rx="46" ry="9" className="spin-guide__table" />
      <path d="M 24 132 Q 64 146 104 132" className="spin-guide__turn" markerEnd="url(#spin-guide-arrow)" />
      {/* product: a vase */}
      <path d="M 52 118 C 40 100 40 80 54 66 L 56 52 L 72 52 L 74 66 C 88 80 88 100 76 118 Z" className="spin-guide__product" />
      {/* tripod */}
      <line x1="200" y1="36" x2="200" y2="136" className="spin-guide__tripod" />
      <line x1="200" y1="100" x2="184" y2="138" className="spin-guide__tripod" />
      <line x1="200" y1="100" x2="216" y2="138" className="spin-guide__tripod" />
      {/* phone, level with the middle of the product */}
      <rect x="192" y="80" width="16" height="12" rx="2" className="spin-guide__phone" />
      <line x1="190" y1="86" x2="90" y2="86" className="spin-guide__ray" />
      <text x="150" y="81" className="spin-guide__label">
        0°
      </text>
      {/* phone, about 30° above */}
      <rect x="192" y="26" width="16" height="12" rx="2" className="spin-guide__phone spin-guide__phone--high" />
      <line x1="190" y1="34" x2="90" y2="86" className="spin-guide__ray" />
      <text x="150" y="48" className="spin-guide__label">
        30°
      </text>
      <defs>
        <marker id="spin-guide-arrow" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" className="spin-guide__arrowhead" />
        </marker>
      </defs>
    </svg>
  );
}
