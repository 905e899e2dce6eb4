import { useCallback, useEffect, useRef, useState, type CSSProperties, type ReactNode, type Ref } from 'react';
import { loadModelViewer, MODEL_VIEWER_LOAD_ERROR } from './load-model-viewer';
import type { ModelViewerElement } from './model-viewer-element';
import './model-viewer-element';
import './model-viewer.css';
import { DEFAULT_CAMERA_ORBIT, MAX_CAMERA_ORBIT } from './scene-graph';
import { usePrefersReducedMotion } from '../../lib/reduced-motion';

/** What the wrapper reports about the model it shows. */
export type ModelState = 'script' | 'loading' | 'loaded' | 'error';

export interface ModelViewerProps {
  src: string;
  alt: string;
  poster?: string;
  /** Spins the model, unless the visitor's system asks for reduced motion. */
  autoRotate?: boolean;
  cameraControls?: boolean;
  /** AR with WebXR, Scene Viewer and Quick Look. */
  ar?: boolean;
  exposure?: number;
  shadowIntensity?: number;
  className?: string;
  style?: CSSProperties;
  /** Fired with the element once the model has loaded (model-viewer `load`). */
  onLoad?: (el: ModelViewerElement) => void;
  onModelError?: (message: string) => void;
  /** An animation played with repetitions: 1 reached its end. */
  onFinished?: (el: ModelViewerElement) => void;
  ref?: Ref<ModelViewerElement | null>;
  children?: ReactNode;
}

function assignRef<T>(ref: Ref<T> | undefined, value: T) {
  if (typeof ref === 'function') ref(value);
  else if (ref) (ref as { current: T }).current = value;
}

/**
 * Typed <model-viewer>: imports the viewer lazily (only pages that show 3D pay for
 * it), wires its events, and shows loading, script-failure and model-failure states.
 */
export function ModelViewer({
  src,
  alt,
  poster,
  autoRotate = true,
  cameraControls = true,
  ar = true,
  exposure = 1,
  shadowIntensity = 1,
  className,
  style,
  onLoad,
  onModelError,
  onFinished,
  ref,
  children,
}: ModelViewerProps) {
  const reduceMotion = usePrefersReducedMotion();
  const [state, setState] = useState<ModelState>('script');
  const [scriptError, setScriptError] = useState<string | null>(null);
  const [progress, setProgress] = useState(0);
  const elRef = useRef<ModelViewerElement | null>(null);
  const handlers = useRef({ onLoad, onModelError, onFinished });
  handlers.current = { onLoad, onModelError, onFinished };

  useEffect(() => {
    let live = true;
    loadModelViewer().then(
      () => live && setState((s) => (s === 'script' ? 'loading' : s)),
      (e: unknown) => {
        if (!live) return;
        setScriptError(e instanceof Error ? e.message : MODEL_VIEWER_LOAD_ERROR);
        setState('error');
      },
    );
    return () => {
      live = false;
    };
  }, []);

  // A new source starts a new load.
  useEffect(() => {
    setProgress(0);
    setState((s) => (s === 'script' || scriptError ? s : 'loading'));
  }, [src, scriptError]);

  const setEl = useCallback(
    (el: ModelViewerElement | null) => {
      elRef.current = el;
      assignRef(ref, el);
    },
    [ref],
  );

  const ready = state !== 'script' && !scriptError;
  useEffect(() => {
    const el = elRef.current;
    if (!ready || !el) return;
    const load = () => {
      setState('loaded');
      handlers.current.onLoad?.(el);
    };
    const error = () => {
      setState('error');
      handlers.current.onModelError?.('This 3D model could not be loaded.');
    };
    const prog = (e: Event) => {
      const p = (e as CustomEvent<{ totalProgress?: number }>).detail?.totalProgress;
      if (typeof p === 'number') setProgress(p);
    };
    const finished = () => handlers.current.onFinished?.(el);
    el.addEventListener('load', load);
    el.addEventListener('error', error);
    el.addEventListener('progress', prog);
    el.addEventListener('finished', finished);
    // A model that finished loading before these listeners were attached (a cached
    // file, the viewer script arriving late) fired its `load` already.
    if (el.loaded) load();
    return () => {
      el.removeEventListener('load', load);
      el.removeEventListener('error', error);
      el.removeEventListener('progress', prog);
      el.removeEventListener('finished', finished);
    };
  }, [ready]);

  const cls = ['model-viewer', className].filter(Boolean).join(' ');
  return (
    <div className={cls} style={style} data-model-state={state}>
      {ready && (
        <model-viewer
          ref={setEl}
          src={src}
          alt={alt}
          poster={poster}
          auto-rotate={autoRotate && !reduceMotion ? '' : undefined}
          camera-controls={cameraControls ? '' : undefined}
          touch-action="pan-y"
          // Property-typed values (see ModelViewerAttributes): a boolean and a number.
          ar={ar}
          ar-modes={ar ? 'webxr scene-viewer quick-look' : undefined}
          exposure={exposure}
          shadow-intensity={shadowIntensity}
          interaction-prompt="none"
          camera-orbit={DEFAULT_CAMERA_ORBIT}
          max-camera-orbit={MAX_CAMERA_ORBIT}
          className="model-viewer__element"
        >
          {/* The wrapper's overlay shows the progress; model-viewer's own bar left a grey strip across the top. */}
          <div slot="progress-bar" className="model-viewer__no-bar" />
          {children}
        </model-viewer>
      )}
      {(state === 'script' || state === 'loading') && (
        <div className="model-viewer__overlay" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" />
          <span>{state === 'script' ? 'Loading 3D viewer…' : `Loading model… ${Math.round(progress * 100)}%`}</span>
        </div>
      )}
      {state === 'error' && (
        <div className="model-viewer__overlay model-viewer__overlay--error" role="alert">
          {scriptError ?? 'This 3D model could not be loaded.'}
        </div>
      )}
    </div>
  );
}
