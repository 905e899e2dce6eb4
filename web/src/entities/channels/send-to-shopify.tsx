import { useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { useLazySearchShopifyProductsQuery, useSendToShopifyMutation, useShopifyConnectionQuery } from './channels-api';

/**
 * "Send to Shopify" on the product's Channels panel: find the Shopify product by title, then
 * attach the model (3D media) and the poster (image). Sending again replaces what was sent.
 * Shown only when a store is connected.
 */
export function SendToShopify({ productId }: { productId: string }) {
  const { data: conn } = useShopifyConnectionQuery();
  const [search, { data: found, isFetching }] = useLazySearchShopifyProductsQuery();
  const [send, { isLoading: sending }] = useSendToShopifyMutation();
  const [q, setQ] = useState('');
  const [result, setResult] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  if (!conn?.connected) return null;

  async function onSearch(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    try {
      await search(q.trim()).unwrap();
    } catch (err) {
      setProblem(errorMessage(err, 'Shopify products could not be searched.'));
    }
  }

  return (
    <div className="send-to-shopify" data-testid="send-to-shopify">
      <h3 className="field__label">Send to Shopify ({conn.shop})</h3>
      <form onSubmit={onSearch} className="form form--inline">
        <input className="input" aria-label="Shopify product title" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Product title" />
        <button type="submit" className="btn btn--secondary" disabled={isFetching}>
          Find
        </button>
      </form>
      {found && found.length === 0 && <p className="muted">No Shopify product has that title.</p>}
      {found && found.length > 0 && (
        <ul className="channels__shopify-results">
          {found.map((p) => (
            <li key={p.id}>
              <span>{p.title}</span>{' '}
              <button
                type="button"
                className="btn btn--primary btn--sm"
                disabled={sending}
                onClick={async () => {
                  setProblem(null);
                  setResult(null);
                  try {
                    const sent = await send({ productId, shopifyProductId: p.id }).unwrap();
                    setResult(
                      `Sent to “${p.title}”: ${sent.media.length} file(s) attached` + (sent.replaced > 0 ? `, the ${sent.replaced} sent before replaced.` : '.'),
                    );
                  } catch (err) {
                    setProblem(errorMessage(err, 'The model could not be sent to Shopify.'));
                  }
                }}
              >
                Send model
              </button>
            </li>
          ))}
        </ul>
      )}
      {result && <Alert tone="success">{result}</Alert>}
      {problem && <Alert tone="error">{problem}</Alert>}
    </div>
  );
}
