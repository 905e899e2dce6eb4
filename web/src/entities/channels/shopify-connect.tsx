import { useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { useConnectShopifyMutation, useDisconnectShopifyMutation, useShopifyConnectionQuery } from './channels-api';

/**
 * Settings → Channels → Shopify: the store's myshopify.com domain and a custom app's Admin API
 * access token. The server checks the token with the store and keeps it encrypted; it is never
 * shown again. Disconnect deletes it.
 */
export function ShopifyConnect() {
  const { data: conn } = useShopifyConnectionQuery();
  const [connect, { isLoading: connecting }] = useConnectShopifyMutation();
  const [disconnect, { isLoading: disconnecting }] = useDisconnectShopifyMutation();
  const [shop, setShop] = useState('');
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    try {
      await connect({ shop: shop.trim(), token: token.trim() }).unwrap();
      setToken('');
    } catch (err) {
      setProblem(errorMessage(err, 'The store could not be connected. Please try again.'));
    }
  }

  return (
    <div className="shopify-connect" data-testid="shopify-connect">
      <h3 className="field__label">Shopify</h3>
      {conn?.connected ? (
        <>
          <p>
            Connected to <strong>{conn.shop}</strong>. Send a product&apos;s model from its page (Channels).
          </p>
          <button type="button" className="btn btn--secondary" disabled={disconnecting} onClick={() => void disconnect()}>
            Disconnect Shopify
          </button>
        </>
      ) : (
        <form onSubmit={onSubmit} className="form">
          <p className="field__help">
            In Shopify admin: Settings → Apps and sales channels → Develop apps → create an app with the read_products and
            write_products Admin API scopes, install it, and paste its Admin API access token here.
          </p>
          <label className="field">
            <span className="field__label">Store domain</span>
            <input className="input" value={shop} onChange={(e) => setShop(e.target.value)} placeholder="my-store.myshopify.com" required />
          </label>
          <label className="field">
            <span className="field__label">Admin API access token</span>
            <input className="input" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
          </label>
          {problem && <Alert tone="error">{problem}</Alert>}
          <div className="form__actions">
            <button type="submit" className="btn btn--primary" disabled={connecting}>
              Connect Shopify
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
