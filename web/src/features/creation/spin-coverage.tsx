import { coverageCaption, impliedAzimuths, largestGap, formatDegrees, SPIN_GOOD_PER_RING } from './spin-rules';

/**
 * Azimuth coverage of one ring, seen from above: a circle with a tick at each photo's implied
 * angle (360°·i/n, the first at the top, turning clockwise) and the largest gap in degrees.
 */
export function SpinCoverage({ ring, photos, elevation }: { ring: number; photos: number; elevation: number }) {
  const angles = impliedAzimuths(photos);
  const gap = largestGap(angles);
  const coarse = photos > 0 && photos < SPIN_GOOD_PER_RING;
  const caption = coverageCaption(photos);
  return (
    <figure className="spin-coverage" data-testid="spin-coverage" data-gap={Math.round(gap * 10) / 10}>
      <svg viewBox="-50 -50 100 100" className="spin-coverage__circle" role="img" aria-label={`Ring ${ring} coverage from above: ${caption}`}>
        <circle r="36" className="spin-coverage__track" />
        {angles.map((a, i) => {
          const rad = (a * Math.PI) / 180;
          const [sx, sy] = [Math.sin(rad), -Math.cos(rad)];
          return (
            <line
              key={i}
              x1={sx * 30}
              y1={sy * 30}
              x2={sx * 44}
              y2={sy * 44}
              className={i === 0 ? 'spin-coverage__tick spin-coverage__tick--first' : 'spin-coverage__tick'}
            />
          );
        })}
        <text y="4" textAnchor="middle" className="spin-coverage__elevation">
          {Number.isFinite(elevation) ? formatDegrees(elevation) : '–'}
        </text>
      </svg>
      <figcaption className={coarse ? 'spin-coverage__caption spin-coverage__caption--coarse' : 'spin-coverage__caption'}>
        {caption}
        {coarse && <span className="spin-coverage__hint"> (12 or more per turn give a finer shape)</span>}
      </figcaption>
    </figure>
  );
}
