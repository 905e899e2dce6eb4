/** A catalog as GET /api/catalogs reports it (spec §3). */
export interface Catalog {
  id: string;
  name: string;
  description: string;
  productCount: number;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface CatalogList {
  items: Catalog[];
  totalCatalogs: number;
  totalProducts: number;
}

export const MAX_CATALOG_NAME = 100;
export const MAX_CATALOG_DESCRIPTION = 500;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function parseCatalog(raw: unknown): Catalog {
  const r = (raw ?? {}) as Record<string, unknown>;
  return {
    id: str(r.id),
    name: str(r.name),
    description: str(r.description),
    productCount: typeof r.productCount === 'number' ? r.productCount : 0,
    isDefault: r.isDefault === true,
    createdAt: str(r.createdAt),
    updatedAt: str(r.updatedAt),
  };
}

/** The list with its totals; when the server sends no totals they are counted from the items. */
export function parseCatalogList(raw: unknown): CatalogList {
  const r = (raw ?? {}) as Record<string, unknown>;
  const items = (Array.isArray(raw) ? raw : Array.isArray(r.items) ? r.items : []).map(parseCatalog);
  const totals = (r.totals ?? r) as Record<string, unknown>;
  const num = (...vs: unknown[]) => vs.find((v): v is number => typeof v === 'number');
  return {
    items,
    totalCatalogs: num(totals.catalogs, r.totalCatalogs, r.total) ?? items.length,
    totalProducts: num(totals.products, r.totalProducts) ?? items.reduce((n, c) => n + c.productCount, 0),
  };
}

/** Name check before sending: required and within the length limit. */
export function validateCatalogName(name: string): string | null {
  const t = name.trim();
  if (!t) return 'Give the catalog a name.';
  if (t.length > MAX_CATALOG_NAME) return `Catalog names can be at most ${MAX_CATALOG_NAME} characters.`;
  return null;
}

/** "1 product" / "3 products". */
export function productCountText(n: number): string {
  return `${n} ${n === 1 ? 'product' : 'products'}`;
}
