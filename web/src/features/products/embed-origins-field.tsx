import { useId, useState } from 'react';
import { api, errorMessage } from '../../lib/api';

/** PUT /api/publications/{id}/embed-origins: the sites allowed to frame the embed (issue 11 item 10). */
const embedOriginsApi = api.enhanceEndpoints({ addTagTypes: ['Publication'] }).injectEndpoints({
  endpoints: (build) => ({
    setEmbedOrigins: build.mutation<unknown, { id: string; origins: string[] }>({
      query: ({ id, origins }) => ({ url: `/publications/${encodeURIComponent(id)}/embed-origins`, method: 'PUT', body: { origins } }),
      invalidatesTags: ['Publication'],
    }),
  }),
});
const { useSetEmbedOriginsMutation } = embedOriginsApi;

/** Splits what the merchant typed (one site per line, or separated by commas or spaces). */
export function parseOrigins(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * "Allowed sites" under the embed code: when set, only those sites can show the embed
 * (the server sends them as the embed page's frame-ancestors); empty means any site.
 * The server validates each origin and its message is shown as is.
 */
export function EmbedOriginsField({ publicationId, origins }: { publicationId: string; origins: string[] }) {
  const id = useId();
  const [text, setText] = useState(origins.join('\n'));
  const [save, { isLoading, isSuccess, error, reset }] = useSetEmbedOriginsMutation();
  return (
    <div className="field">
      <label htmlFor={`${id}-origins`}>Allowed sites</label>
      <textarea
        id={`${id}-origins`}
        rows={3}
        placeholder="https://shop.example.com"
        aria-describedby={`${id}-origins-help`}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          reset();
        }}
      />
      <p id={`${id}-origins-help`} className="field__help">
        One site per line. Only these sites can show the embed; leave empty to allow any site.
      </p>
      <div>
        <button type="button" className="btn btn--secondary btn--sm" disabled={isLoading} onClick={() => void save({ id: publicationId, origins: parseOrigins(text) })}>
          {isLoading ? 'Saving...' : 'Save allowed sites'}
        </button>
      </div>
      {isSuccess && <p role="status">Allowed sites saved.</p>}
      {error && <p role="alert">{errorMessage(error, 'The allowed sites could not be saved. Please try again.')}</p>}
    </div>
  );
}
