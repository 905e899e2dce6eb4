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

/** One product an "Add products" pick took from another catalog. */
export interface MovedProduct {
  id: string;
  name: string;
  fromCatalogId: string;
  fromCatalogName: string;
}

export interface MoveResult {
  catalog: Catalog;
  moved: MovedProduct[];
}

export function parseMoveResult(raw: unknown): MoveResult {
  const r = (raw ?? {}) as Record<string, unknown>;
  const moved = Array.isArray(r.moved) ? r.moved : [];
  return {
    catalog: parseCatalog(r.catalog),
    moved: moved.map((m) => {
      const x = (m ?? {}) as Record<string, unknown>;
      return { id: str(x.id), name: str(x.name), fromCatalogId: str(x.fromCatalogId), fromCatalogName: str(x.fromCatalogName) };
    }),
  };
}

/**
 * What the catalog page says after "Add products": how many came, and where each one
 * left (a product is in one catalog, so adding it here takes it out of the other).
 */
export function moveSummary(catalogName: string, moved: MovedProduct[]): string {
  if (moved.length === 0) return `Those products are already in ${catalogName}.`;
  const n = moved.length;
  const head = `Added ${n} ${n === 1 ? 'product' : 'products'} to ${catalogName}.`;
  const byFrom = new Map<string, string[]>();
  for (const m of moved) byFrom.set(m.fromCatalogName || 'another catalog', [...(byFrom.get(m.fromCatalogName || 'another catalog') ?? []), m.name]);
  const parts = [...byFrom].map(([from, names]) => `${names.join(', ')} moved out of ${from}`);
  return `${head} ${parts.join('; ')}.`;
}
