/**
 * Turns the OpenAPI 3.1 document served at /api/openapi.json into what the reference page
 * shows: tags → operations → parameters, request body, responses and their examples. Kept
 * free of React so the rules are unit-tested and the page stays a thin view. Only the parts
 * of OpenAPI our fragments use are understood (local $refs, JSON bodies, schema objects).
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

export interface OpenApiDoc {
  info?: { title?: string; version?: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, Obj>>;
  components?: Obj;
}

export interface ParamView {
  name: string;
  in: string;
  required: boolean;
  type: string;
  description: string;
}

export interface BodyView {
  mediaType: string;
  type: string;
  fields: FieldView[];
  example?: string;
}

export interface FieldView {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

export interface ResponseView {
  status: string;
  description: string;
  body?: BodyView;
}

export interface OperationView {
  id: string;
  anchor: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  /** "public", or the API-key scope the operation needs (read, write, publish). */
  access: string;
  params: ParamView[];
  request?: BodyView;
  responses: ResponseView[];
}

export interface TagView {
  name: string;
  description: string;
  anchor: string;
  operations: OperationView[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Follows a local "#/a/b" reference; anything else (or a dangling one) resolves to {}. */
export function resolve(doc: OpenApiDoc, v: Json | undefined): Obj {
  let cur: unknown = v;
  for (let hops = 0; isObj(cur) && typeof cur.$ref === 'string' && hops < 10; hops++) {
    const parts = cur.$ref.replace(/^#\//, '').split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    let next: unknown = doc;
    for (const p of parts) next = isObj(next) ? next[p] : undefined;
    cur = next;
  }
  return isObj(cur) ? cur : {};
}

function refName(v: Json | undefined): string | undefined {
  return isObj(v) && typeof v.$ref === 'string' ? v.$ref.split('/').pop() : undefined;
}

/** A short human type: "string", "integer | null", "Job", "array of Variant", "object". */
export function typeText(doc: OpenApiDoc, schema: Json | undefined): string {
  const name = refName(schema);
  if (name) return name;
  if (!isObj(schema)) return 'any';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((e) => JSON.stringify(e)).join(' | ');
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map((s) => typeText(doc, s)).join(' | ');
  const t = schema.type;
  const types = Array.isArray(t) ? t.map(String) : typeof t === 'string' ? [t] : [];
  const text = types.map((x) => (x === 'array' ? `array of ${typeText(doc, schema.items)}` : x));
  if (typeof schema.format === 'string' && text.length) text[0] += ` (${schema.format})`;
  return text.join(' | ') || 'any';
}

/** The fields of an object schema (through a $ref and the success envelope's data). */
export function fieldsOf(doc: OpenApiDoc, schema: Json | undefined): FieldView[] {
  const s = resolve(doc, schema);
  const props = isObj(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required.map(String) : [];
  return Object.entries(props).map(([name, p]) => ({
    name,
    type: typeText(doc, p),
    required: required.includes(name),
    description: String(resolve(doc, p).description ?? (isObj(p) ? (p.description ?? '') : '')),
  }));
}

/** Unwraps {success, data: X} so the page documents X's fields. */
function payloadSchema(doc: OpenApiDoc, schema: Json | undefined): Json | undefined {
  const s = resolve(doc, schema);
  const props = isObj(s.properties) ? s.properties : {};
  if ('success' in props && 'data' in props) return props.data;
  return schema;
}

function bodyView(doc: OpenApiDoc, content: Json | undefined): BodyView | undefined {
  if (!isObj(content)) return undefined;
  const [mediaType, mediaRaw] = Object.entries(content)[0] ?? [];
  if (!mediaType) return undefined;
  const media = isObj(mediaRaw) ? mediaRaw : {};
  const payload = payloadSchema(doc, media.schema);
  const examples = isObj(media.examples) ? media.examples : {};
  const ok = isObj(examples.ok) ? examples.ok.value : undefined;
  const example =
    ok === undefined ? undefined : typeof ok === 'string' ? ok : JSON.stringify(ok, null, 2);
  return { mediaType, type: typeText(doc, payload), fields: fieldsOf(doc, payload), example };
}

function accessOf(op: Obj, doc: OpenApiDoc): string {
  const sec = Array.isArray(op.security) ? op.security : (doc as Obj).security;
  if (Array.isArray(sec) && sec.length === 0) return 'public';
  const first = Array.isArray(sec) && isObj(sec[0]) ? sec[0] : {};
  const scopes = Object.values(first).flatMap((v) => (Array.isArray(v) ? v.map(String) : []));
  return scopes.length ? scopes.join(', ') : 'signed in';
}

/** The whole reference, grouped by tag in the document's tag order. */
export function buildReference(doc: OpenApiDoc): TagView[] {
  const tags = new Map<string, TagView>();
  for (const t of doc.tags ?? []) {
    tags.set(t.name, { name: t.name, description: t.description ?? '', anchor: `tag-${slug(t.name)}`, operations: [] });
  }
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const tagName = Array.isArray(op.tags) && op.tags.length ? String(op.tags[0]) : 'Other';
      if (!tags.has(tagName)) tags.set(tagName, { name: tagName, description: '', anchor: `tag-${slug(tagName)}`, operations: [] });
      const id = String(op.operationId ?? `${method}-${path}`);
      const params = (Array.isArray(op.parameters) ? op.parameters : []).map((p) => {
        const r = resolve(doc, p);
        return {
          name: String(r.name ?? ''),
          in: String(r.in ?? ''),
          required: r.required === true,
          type: typeText(doc, r.schema),
          description: String(r.description ?? ''),
        };
      });
      const responses = Object.entries(isObj(op.responses) ? op.responses : {})
        .map(([status, raw]) => {
          const r = resolve(doc, raw);
          return { status, description: String(r.description ?? ''), body: bodyView(doc, r.content) };
        })
        .sort((a, b) => a.status.localeCompare(b.status));
      tags.get(tagName)!.operations.push({
        id,
        anchor: `op-${id}`,
        method: method.toUpperCase(),
        path,
        summary: String(op.summary ?? ''),
        description: String(op.description ?? ''),
        access: accessOf(op, doc),
        params,
        request: bodyView(doc, resolve(doc, op.requestBody).content),
        responses,
      });
    }
  }
  for (const t of tags.values()) t.operations.sort((a, b) => a.path.localeCompare(b.path) || METHODS.indexOf(a.method.toLowerCase()) - METHODS.indexOf(b.method.toLowerCase()));
  return [...tags.values()].filter((t) => t.operations.length > 0);
}

/** Keeps the operations whose method, path, summary, id or tag contain every word of query. */
export function filterReference(tags: TagView[], query: string): TagView[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return tags;
  return tags
    .map((t) => ({
      ...t,
      operations: t.operations.filter((o) => {
        const hay = `${o.method} ${o.path} ${o.summary} ${o.id} ${t.name}`.toLowerCase();
        return words.every((w) => hay.includes(w));
      }),
    }))
    .filter((t) => t.operations.length > 0);
}

export function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
