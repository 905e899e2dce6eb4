import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useNavigationType, useSearchParams } from 'react-router';
import { Alert } from '../../components/alert';
import { LoadingScreen } from '../../components/loading-screen';
import { Toast } from '../../components/toast';
import { errorMessage } from '../../lib/api';
import { useGetJobQuery } from '../../entities/creation/creation-api';
import { MSG_PROCESS_FAILED } from '../../entities/creation/creation-rules';
import { azimuthsFor, MoreAngles } from '../../entities/creation/more-angles';
import { Configurator } from '../../entities/product/configurator';
import type { ProductDetail } from '../../entities/product/product-rules';
import { useGetProductQuery } from '../../entities/product/products-api';
import { ProductLimitDialog } from '../../entities/product/product-limit-dialog';
import { MSG_DRAFT_ANGLES } from '../../entities/product/add-product-rules';
import {
  useCreatePhotoProductMutation,
  useMakeCutoutMutation,
  useRebuildProductMutation,
  type CutoutOptions,
} from '../../entities/product/add-product-api';
import { ModelDropZone, OwnModelButton, useOwnModel } from '../../entities/product/own-model';
import {
  buildProgress,
  buildState,
  loadCreated,
  loadDraft,
  noteWizardBuild,
  parseWizardQuery,
  saveCreated,
  saveDraft,
  startingDraft,
  takeReadyToast,
  TOAST_BUILDING,
  TOAST_MS,
  TOAST_READY,
  TOAST_REMOVING,
  WIZARD_STEPS,
  wizardURL,
  type PhotoDraft,
  type WizardStep,
} from '../../entities/product/add-product-rules';
import { FailureAlert, InitStep, VerifyStep, type Failure } from './photo-steps';
import { BuildModal, PreviewStep, PublishStep } from './product-steps';
import { OwnModelStart } from './own-model-start';
import { EditorsGate } from '../../entities/team/view-only';
import './add-product.css';

const STEP_LABEL: Record<WizardStep, string> = { init: 'Photo', verify: 'Verify', configurator: 'Configure', preview: 'Preview', publish: 'Publish' };
const POLL_MS = 2000;

/**
 * /workspace/add-product — the Add Product wizard (spec §2): init → verify → configurator →
 * preview → publish. The step and the product id live in the URL so a reload keeps the flow;
 * the name and uploaded photo (before a product exists) are kept for this tab's session.
 */
export default function AddProductPage() {
  return (
    <EditorsGate title="Add product" back={{ to: '/workspace/products', label: '← Back to products' }}>
      <AddProduct />
    </EditorsGate>
  );
}

function AddProduct() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { step, productId, fromProduct } = parseWizardQuery(params);
  const navigation = useNavigationType();
  const location = useLocation();
  const [draft, setDraftState] = useState<PhotoDraft>(() => startingDraft(navigation, location.state));
  const [options, setOptions] = useState<CutoutOptions>({ cleanEdges: true, keepShadow: false });
  const [failure, setFailure] = useState<Failure | null>(null);
  // A 403 (the plan's product limit): explained here, the name and photo kept in view.
  const [limit, setLimit] = useState<string | null>(null);
  // Toasts queue: "3D ready" waits for "We are building your 3D" to finish rather than replace it.
  const [toasts, setToasts] = useState<string[]>([]);
  const toast = toasts[0] ?? null;
  const setToast = useCallback((m: string) => setToasts((q) => (q[q.length - 1] === m ? q : [...q, m])), []);
  const [create, { isLoading: creatingProduct }] = useCreatePhotoProductMutation();
  const [makeCutout, { isLoading: cutting }] = useMakeCutoutMutation();
  const creating = creatingProduct || cutting;
  // Further angles of the product (issue 34 §3); files live only on this page.
  const [more, setMore] = useState<File[]>([]);
  const clearToast = useCallback(() => setToasts((q) => q.slice(1)), []);

  const setDraft = (d: PhotoDraft) => {
    setDraftState(d);
    saveDraft(d);
  };
  const go = (s: WizardStep, id = productId) => navigate(wizardURL(s, id), { state: { wizard: true } });
  // Back from the configurator: the product exists (and its credit is spent); say so.
  const created = (step === 'init' || step === 'verify') && !draft.uploadId ? loadCreated() : null;

  // Set while leaving the photo steps for the new product's configurator, whose empty
  // draft must not send verify back to init on the way out.
  const leaving = useRef(false);
  // verify needs an uploaded photo; after a lost session it starts over.
  useEffect(() => {
    if (step !== 'init' && step !== 'verify') leaving.current = false;
    if (step === 'verify' && !draft.uploadId && !leaving.current) navigate(wizardURL('init'), { replace: true, state: { wizard: true } });
  }, [step, draft.uploadId, navigate]);

  const createProduct = async (generate: boolean, opts: CutoutOptions) => {
    setFailure(null);
    // A build with cutout options uses the cutout made for them (the server insists). From
    // the Photo step nobody has asked for it yet, so it is made first, for a build now or
    // for the draft's Generate 3D later; on Verify it is already there.
    if (step === 'init' && (opts.cleanEdges || opts.keepShadow)) {
      const cut = await makeCutout({ uploadId: draft.uploadId, ...opts });
      if ('error' in cut && cut.error) return setFailure({ message: errorMessage(cut.error, MSG_PROCESS_FAILED), needsCredits: false });
    }
    // A draft keeps one photo: say so rather than drop the extra angles.
    if (!generate && more.length) return setFailure({ message: MSG_DRAFT_ANGLES, needsCredits: false });
    const az = azimuthsFor(more.length);
    const res = await create({
      name: draft.name.trim(),
      uploadId: draft.uploadId,
      generate,
      ...opts,
      ...(more.length ? { more: more.map((file, i) => ({ file, azimuth: az[i] })) } : {}),
    });
    if ('error' in res && res.error) {
      const err = res.error as { status?: unknown };
      if (err.status === 403) return setLimit(errorMessage(res.error, ''));
      return setFailure({ message: errorMessage(res.error, MSG_PROCESS_FAILED), needsCredits: err.status === 402 });
    }
    saveDraft(null);
    setMore([]);
    if (!generate) return navigate('/workspace/products');
    if (res.data?.id) {
      saveCreated({ id: res.data.id, name: res.data.name || draft.name.trim() });
      noteWizardBuild(res.data.id);
    }
    setToast(TOAST_BUILDING);
    leaving.current = true;
    navigate(wizardURL('configurator', res.data?.id ?? ''), { state: { building: true, wizard: true } });
    // The photo steps start empty when Back returns to them (with the created product offered).
    setDraftState(loadDraft());
  };

  const at = WIZARD_STEPS.indexOf(step);
  return (
    <div className="page wizard">
      {fromProduct ? (
        <header className="page__header">
          <div>
            <Link to={`/workspace/product/${encodeURIComponent(productId)}`} className="back-link">
              ← Back to the product
            </Link>
            <h1 className="page__title">Publishing</h1>
          </div>
        </header>
      ) : (
        <header className="page__header">
          <div>
            <h1 className="page__title">Add product</h1>
            <ol className="wizard__steps" aria-label="Steps">
              {WIZARD_STEPS.map((s, i) => (
                <li key={s} className={`wizard__step wizard__step--${i < at ? 'done' : i === at ? 'active' : 'pending'}`} aria-current={i === at ? 'step' : undefined}>
                  {STEP_LABEL[s]}
                </li>
              ))}
            </ol>
          </div>
        </header>
      )}
      {created && (
        <div className="wizard__status" role="status" data-testid="wizard-created">
          <span>
            You already created “{created.name || 'your product'}”. Its 3D model is kept; carry on where you left off, or start another product below.
          </span>
          <Link className="btn btn--primary btn--sm" to={wizardURL('configurator', created.id)} state={{ wizard: true }}>
            Continue with “{created.name || 'your product'}”
          </Link>
        </div>
      )}
      {step === 'init' && (
        <InitStep
          draft={draft}
          onDraft={setDraft}
          busy={creating}
          failure={failure}
          onRemoveBackground={() => {
            setToast(TOAST_REMOVING);
            go('verify');
          }}
          onGenerate={() => void createProduct(true, options)}
          onSaveDraft={() => void createProduct(false, options)}
        />
      )}
      {step === 'verify' && draft.uploadId && (
        <VerifyStep
          draft={draft}
          options={options}
          onOptions={setOptions}
          busy={creating}
          failure={failure}
          onGenerate={() => void createProduct(true, options)}
          onDifferentPhoto={() => {
            setDraft({ ...draft, uploadId: '', photoURL: '', fileName: '' });
            go('init');
          }}
          onBack={() => go('init')}
        />
      )}
      {(step === 'init' || step === 'verify') && draft.uploadId && <MoreAngles files={more} onChange={setMore} disabled={creating} />}
      {step === 'init' && !draft.uploadId && <OwnModelStart name={draft.name} onLimit={setLimit} />}
      {(step === 'configurator' || step === 'preview' || step === 'publish') && <ProductSteps step={step} productId={productId} onToast={setToast} fromProduct={fromProduct} />}
      {limit !== null && <ProductLimitDialog message={limit} draftKept onClose={() => setLimit(null)} />}
      <Toast message={toast} ms={TOAST_MS} onDone={clearToast} />
    </div>
  );
}

/** The steps that work on the created product: configurator (with the build modal), preview, publish. */
function ProductSteps({ step, productId, onToast, fromProduct }: { step: WizardStep; productId: string; onToast: (m: string) => void; fromProduct: boolean }) {
  const navigate = useNavigate();
  const [poll, setPoll] = useState(true);
  const { data: product, isLoading, error } = useGetProductQuery(productId, { pollingInterval: poll ? POLL_MS : 0 });
  const building = product?.status === 'processing';
  const jobId = building ? (product?.jobId ?? '') : '';
  const { data: job } = useGetJobQuery(jobId, { skip: !jobId, pollingInterval: jobId ? POLL_MS : 0 });
  useEffect(() => setPoll(!product || building), [product, building]);

  if (isLoading) return <LoadingScreen />;
  if (error || !product) return <Alert tone="error">{errorMessage(error, 'This product could not be loaded.')}</Alert>;
  const go = (s: WizardStep) => navigate(wizardURL(s, productId));

  if (step === 'preview') return <PreviewStep product={product} onPublish={() => go('publish')} onBack={() => go('configurator')} />;
  if (step === 'publish') {
    // From the product's page, Back and Done lead back there rather than into the wizard.
    const toProduct = () => navigate(`/workspace/product/${encodeURIComponent(productId)}`);
    return <PublishStep product={product} onDone={fromProduct ? toProduct : () => navigate('/workspace/products')} onBack={fromProduct ? toProduct : () => go('preview')} />;
  }
  return <ConfiguratorStep product={product} job={job ?? null} onToast={onToast} onPreview={() => go('preview')} onPublish={() => go('publish')} />;
}

function ConfiguratorStep({
  product: p,
  job,
  onToast,
  onPreview,
  onPublish,
}: {
  product: ProductDetail;
  job: Parameters<typeof buildState>[1];
  onToast: (m: string) => void;
  onPreview: () => void;
  onPublish: () => void;
}) {
  const state = buildState(p, job);
  const progress = buildProgress(p, job);
  const own = useOwnModel(p.id);
  // The modal opens while a build runs (or failed); Hide status keeps it closed for this build.
  // Right after Generate 3D the modal opens whatever the build already reached (it may be Ready).
  const arrival = useLocation().state as { building?: boolean; ownModelProblem?: string } | null;
  const justStarted = arrival?.building === true;
  // The wizard's "I have a .glb/.gltf" sent a file the checks refused: said here until another try.
  const [arrivalProblem, setArrivalProblem] = useState(arrival?.ownModelProblem ?? null);
  useEffect(() => {
    if (own.busy) setArrivalProblem(null);
  }, [own.busy]);
  const ownModelProblem = own.problem ?? arrivalProblem;
  const [modal, setModal] = useState<'open' | 'closed' | 'hidden'>(justStarted || (state !== 'ready' && state !== 'draft') ? 'open' : 'closed');
  const [rebuild, { isLoading: starting }] = useRebuildProductMutation();
  const [failure, setFailure] = useState<Failure | null>(null);
  const generate = async () => {
    setFailure(null);
    const res = await rebuild(p.id);
    if ('error' in res && res.error) {
      const err = res.error as { status?: unknown };
      return setFailure({ message: errorMessage(res.error, MSG_PROCESS_FAILED), needsCredits: err.status === 402 });
    }
    noteWizardBuild(p.id);
    onToast(TOAST_BUILDING);
    setModal('open');
  };
  const previous = useRef(state);
  useEffect(() => {
    // A build started in this wizard session that is ready now, however fast it was.
    if (takeReadyToast(p.id, state)) onToast(TOAST_READY);
    if (previous.current !== 'failed' && state === 'failed' && modal === 'closed') setModal('open');
    previous.current = state;
  }, [state, onToast, modal]);

  return (
    <>
      {state === 'draft' &&
        (p.photoURL ? (
          <div className="wizard__status">
            <span>This draft has no 3D model yet.</span>
            <button type="button" className="btn btn--primary btn--sm" onClick={generate} disabled={starting}>
              Generate 3D now
            </button>
          </div>
        ) : (
          <div className="wizard__status">
            <span>This product waits for your 3D file: choose “Use my own 3D file” below, or drop a .glb/.gltf on the viewer.</span>
          </div>
        ))}
      {ownModelProblem && !own.busy && <Alert tone="error">{ownModelProblem}</Alert>}
      <FailureAlert failure={failure} />
      {state !== 'ready' && state !== 'draft' && modal !== 'hidden' && (
        <div className="wizard__status" role="status">
          <span>{state === 'failed' ? 'The 3D build stopped.' : `Building your 3D… ${state === 'queued' ? 'Queued' : `${progress}%`}`}</span>
          <button type="button" className="btn btn--ghost btn--sm" onClick={() => setModal('open')}>
            Show status
          </button>
        </div>
      )}
      {/* A .glb/.gltf dropped on the configurator replaces the model, as the file button does. */}
      <ModelDropZone onFiles={(f) => void own.upload(f)} busy={own.busy}>
        <Configurator
          product={p}
          footer={
            <>
              {/* The wizard's next steps sit beside Save; the optional own-model upload comes last, so it is what wraps on a narrow panel. */}
              <button type="button" className="btn btn--secondary" onClick={onPreview}>
                Preview
              </button>
              <button type="button" className="btn btn--secondary" onClick={onPublish} disabled={!p.modelURL}>
                Publish
              </button>
              <OwnModelButton own={own} inlineProblem={false} />
            </>
          }
        />
      </ModelDropZone>
      {modal === 'open' && state !== 'draft' && (
        <BuildModal
          product={p}
          state={state}
          progress={progress}
          onKeepEditing={() => setModal('closed')}
          onHide={() => setModal('hidden')}
          onRetried={() => {
            noteWizardBuild(p.id);
            onToast(TOAST_BUILDING);
          }}
        />
      )}
    </>
  );
}
