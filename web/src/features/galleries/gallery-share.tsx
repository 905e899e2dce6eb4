import { useId, useState } from 'react';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { apiURL, downloadFile } from '../../lib/download';
import { COPIED_MS, useFlag } from '../../lib/use-flag';
import { usePublishGalleryMutation, useUnpublishGalleryMutation } from './galleries-api';
import type { GalleryDetail } from './gallery-rules';

/**
 * Share this gallery (issue 29 item 14): publish its public page /g/{slug}, a grid of its live
 * products each opening its own product page; then its link, embed code and QR code, and Unpublish.
 * Teams (issue 51): publishing is the owner's, or an editor's where approval is not required;
 * Unpublish the owner's and editors'; everyone who sees the gallery may copy its link.
 */
export function GalleryShare({ gallery: g, canPublish = true, canPublishDirectly = true }: { gallery: GalleryDetail; canPublish?: boolean; canPublishDirectly?: boolean }) {
  const id = useId();
  const [publish, { isLoading: publishing }] = usePublishGalleryMutation();
  const [unpublish, { isLoading: unpublishing }] = useUnpublishGalleryMutation();
  const [problem, setProblem] = useState<string | null>(null);
  const [copied, flashCopied] = useFlag(COPIED_MS);
  const [codeCopied, flashCodeCopied] = useFlag(COPIED_MS);
  const pub = g.publication;
  const live = g.products.filter((p) => p.live).length;

  const copy = async (text: string, flash: () => void) => {
    try {
      await navigator.clipboard.writeText(text);
      flash();
    } catch {
      /* the text stays selectable */
    }
  };
  const liveNote =
    g.products.length === 0
      ? 'Add products to this gallery to show them on its page.'
      : live === g.products.length
        ? live === 1
          ? 'Its product is live and shown on the page.'
          : `All ${live} products are live and shown on the page.`
        : `${live} of ${g.products.length} products are live and shown. Publish the others from their product pages to show them too.`;

  return (
    <section className="card gallery-share" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="section-title">
        Share this gallery
      </h2>
      <p className="muted" data-testid="gallery-live-note">
        {liveNote}
      </p>
      {problem && <Alert tone="error">{problem}</Alert>}
      {!pub && !canPublishDirectly ? (
        <p className="muted" data-testid="gallery-not-published">
          {canPublish
            ? 'This gallery page is not published. This workspace requires approval before anything goes live, so the owner publishes it.'
            : 'This gallery page is not published. The owner or an editor publishes it.'}
        </p>
      ) : !pub ? (
        <div className="btn-row">
          <button
            type="button"
            className="btn btn--primary"
            disabled={publishing}
            onClick={async () => {
              setProblem(null);
              const res = await publish(g.id);
              if ('error' in res && res.error) setProblem(errorMessage(res.error, 'The gallery page could not be published. Please try again.'));
            }}
          >
            {publishing ? 'Publishing…' : 'Publish gallery page'}
          </button>
        </div>
      ) : (
        <div className="gallery-share__live">
          <div className="gallery-share__fields">
            <div className="field">
              <label htmlFor={`${id}-link`}>Share link</label>
              <div className="link-input">
                <input id={`${id}-link`} readOnly value={pub.shareURL} onFocus={(e) => e.currentTarget.select()} data-testid="gallery-share-url" />
                <button type="button" className="btn btn--secondary btn--sm" onClick={() => void copy(pub.shareURL, flashCopied)}>
                  {copied ? 'Copied' : 'Copy link'}
                </button>
              </div>
            </div>
            <div className="field">
              <label htmlFor={`${id}-code`}>Embed code</label>
              <textarea id={`${id}-code`} className="embed-code" readOnly value={pub.embedCode} onFocus={(e) => e.currentTarget.select()} />
            </div>
            <div className="btn-row">
              <button type="button" className="btn btn--secondary btn--sm" onClick={() => void copy(pub.embedCode, flashCodeCopied)}>
                {codeCopied ? 'Copied' : 'Copy embed code'}
              </button>
              <a className="btn btn--ghost btn--sm" href={pub.shareURL} target="_blank" rel="noreferrer">
                Open page
              </a>
              <button
                type="button"
                className="btn btn--secondary btn--sm"
                onClick={() =>
                  downloadFile(apiURL(`/publications/${encodeURIComponent(pub.publicationId)}/qr.png`), `${g.name || 'gallery'}-qr.png`, 'image/png').catch(() =>
                    setProblem('The QR code could not be downloaded.'),
                  )
                }
              >
                Download QR
              </button>
              {canPublish && (
                <button
                  type="button"
                  className="btn btn--ghost btn--sm"
                  disabled={unpublishing}
                  onClick={async () => {
                    setProblem(null);
                    const res = await unpublish({ galleryId: g.id, publicationId: pub.publicationId });
                    if ('error' in res && res.error) setProblem(errorMessage(res.error, 'The gallery page could not be unpublished.'));
                  }}
                >
                  {unpublishing ? 'Unpublishing…' : 'Unpublish'}
                </button>
              )}
            </div>
          </div>
          <img className="gallery-share__qr" src={pub.qrURL} width={160} height={160} alt="QR code that opens this gallery on your phone" />
        </div>
      )}
    </section>
  );
}
