import { IconCube } from './icons';

/** Product mark and word mark. */
export function Logo({ compact = false }: { compact?: boolean }) {
  return (
    <span className="logo">
      <span className="logo__mark"><IconCube size={18} /></span>
      {!compact && <span className="logo__text">Photo3D</span>}
    </span>
  );
}
