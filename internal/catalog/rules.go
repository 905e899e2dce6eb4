package catalog

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // tz names work on hosts and images without a zoneinfo database
	"unicode/utf8"

	"github.com/photo3d/photo3d/internal/fault"
)

// Limits on what a merchant may type. They bound storage and keep the cards
// readable; every message says what to fix.
const (
	MaxNameLength        = 100
	MaxDescriptionLength = 2000
	MaxCatalogDescLength = 500
	MaxURLLength         = 2048
	MaxTags              = 20
	MaxTagLength         = 30
	MaxGalleryProducts   = 100
	MaxQueryLength       = 200
)

// Plan messages, word for word from the spec (§6, §2 Galleries).
const (
	FreeProductLimitMessage = "Free plan limited to 2 products. Upgrade to Pro for 50 listings."
	GalleriesProMessage     = "Galleries are a Pro feature (Pro allows up to 10 galleries and public sharing of collections)."
)

// User-facing failures of this package.
var (
	ErrProductNotFound   = fault.NotFoundf("Product not found.")
	ErrCatalogNotFound   = fault.NotFoundf("Catalog not found.")
	ErrGalleryNotFound   = fault.NotFoundf("Gallery not found.")
	ErrBlueprintRequired = fault.New(fault.Invalid, "blueprint_required", "Choose a blueprint for this product.")
	ErrDefaultCatalog    = fault.New(fault.Conflict, "default_catalog", "The default catalog cannot be deleted.")
	ErrFreeProductLimit  = fault.New(fault.Forbidden, "product_limit", FreeProductLimitMessage)
	ErrGalleriesPro      = fault.New(fault.Forbidden, "galleries_pro", GalleriesProMessage)
	ErrNoBuild           = fault.New(fault.Conflict, "no_build", "This product has no photo to rebuild from.")
	ErrLinkTooLong       = fault.New(fault.Invalid, "link_too_long", "Links can be at most 2048 characters.")
	ErrStillBuilding     = fault.New(fault.Conflict, "still_building", "This product is still being built. Wait for the build to finish before starting another.")
)

// CheckProductLimit applies spec §6/§9: Free 2 products (the spec's banner
// text), Pro and trial 50; nil limit = unlimited (Enterprise). used counts
// the merchant's live products.
func CheckProductLimit(limit *int64, used int) error {
	if limit == nil || int64(used) < *limit {
		return nil
	}
	if *limit == 2 {
		return ErrFreeProductLimit
	}
	return fault.New(fault.Forbidden, "product_limit",
		fmt.Sprintf("Your plan is limited to %d products. Delete a product to add another.", *limit))
}

// CheckGalleryLimit applies spec §6/§9: no galleries on Free (the spec's Pro
// feature text), 10 on Pro and trial; nil = unlimited.
func CheckGalleryLimit(limit *int64, used int) error {
	if limit == nil {
		return nil
	}
	if *limit == 0 {
		return ErrGalleriesPro
	}
	if int64(used) >= *limit {
		return fault.New(fault.Forbidden, "gallery_limit",
			fmt.Sprintf("Pro allows up to %d galleries. Delete a gallery to create another.", *limit))
	}
	return nil
}

// CleanName trims and collapses spaces and checks the length; what names
// ("product", "catalog", "gallery") the thing in the message.
func CleanName(what, name string) (string, error) {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" {
		return "", fault.Invalidf("name_required", "Please enter a %s name.", what)
	}
	if utf8.RuneCountInString(name) > MaxNameLength {
		return "", fault.Invalidf("name_too_long", "%s names can be at most %d characters.", capital(what), MaxNameLength)
	}
	return name, nil
}

// CleanDescription trims and bounds a description.
func CleanDescription(desc string, max int) (string, error) {
	desc = strings.TrimSpace(desc)
	if utf8.RuneCountInString(desc) > max {
		return "", fault.Invalidf("description_too_long", "Descriptions can be at most %d characters.", max)
	}
	return desc, nil
}

// CleanProductURL accepts an empty URL or an absolute http(s) URL with a host.
// Other schemes (javascript:, data:, ftp:) are refused: the URL is shown to
// shoppers as a link.
func CleanProductURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	if len(raw) > MaxURLLength {
		return "", fault.Invalidf("product_url_too_long", "Product URLs can be at most %d characters.", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", fault.New(fault.Invalid, "invalid_product_url", "Enter a product URL starting with http:// or https://, for example https://shop.example.com/item.")
	}
	return u.String(), nil
}

// CleanTags trims tags, drops case-insensitive duplicates (first spelling
// wins) and bounds their number and length.
func CleanTags(tags []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.Join(strings.Fields(t), " ")
		if t == "" {
			return nil, fault.New(fault.Invalid, "tag_empty", "Tags cannot be empty.")
		}
		if utf8.RuneCountInString(t) > MaxTagLength {
			return nil, fault.Invalidf("tag_too_long", "Tags can be at most %d characters.", MaxTagLength)
		}
		k := strings.ToLower(t)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, fault.Invalidf("too_many_tags", "A product can have at most %d tags.", MaxTags)
	}
	return out, nil
}

// CleanProductIDs checks a gallery's product list: no duplicates, bounded,
// and the cover (if any) among them.
func CleanProductIDs(ids []string, cover string) ([]string, error) {
	if len(ids) > MaxGalleryProducts {
		return nil, fault.Invalidf("too_many_products", "A gallery can hold at most %d products.", MaxGalleryProducts)
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if seen[id] {
			return nil, fault.New(fault.Invalid, "duplicate_product", "Each product can appear in a gallery only once.")
		}
		seen[id] = true
		out = append(out, id)
	}
	if cover != "" && !seen[cover] {
		return nil, fault.New(fault.Invalid, "cover_not_in_gallery", "Choose the cover from the gallery's products.")
	}
	return out, nil
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Sort orders of the lists (spec §2: Newest (default) or Name).
const (
	SortNewest = "newest"
	SortName   = "name"
)

// PageSizes are the spec's rows-per-page options (§9), default 10.
var PageSizes = []int{10, 20, 30, 50}

// DefaultPageSize is the first page size option.
const DefaultPageSize = 10

// ListParams select one page of products or galleries (spec §5: created on
// or after From and on or before To, inclusive calendar dates in the
// merchant's time zone tz, UTC when none is given; no status = all).
type ListParams struct {
	Statuses []string
	// Live (status=live): products whose public page is published; with
	// statuses, either matches. Galleries have no such state and ignore it.
	Live      bool
	From, To  *time.Time // midnights in the requested zone; To is inclusive (the whole day)
	Sort      string
	Page      int
	PageSize  int
	Query     string
	CatalogID string // products of one catalog (GET /catalogs/{id}/products)
	// within: the plan's product limit; only the oldest that many products are
	// listed (set by Service.Products, never from the query string).
	within *int64
}

// ParseListParams reads the query string of GET /products and GET /galleries.
// Unknown values are refused with a message rather than silently ignored, so
// a mistyped link does not show the wrong list.
func ParseListParams(q url.Values) (ListParams, error) {
	p := ListParams{Sort: SortNewest, Page: 1, PageSize: DefaultPageSize}
	if v := strings.TrimSpace(q.Get("status")); v != "" {
		seen := map[string]bool{}
		for _, s := range strings.Split(v, ",") {
			s = strings.TrimSpace(strings.ToLower(s))
			switch s {
			case StatusProcessing, StatusReady, StatusError, StatusDraft:
			case "live":
				p.Live = true
				continue
			case "":
				continue
			default:
				return p, fault.Invalidf("invalid_status", "Unknown status %q: use draft, live, processing, ready or error.", s)
			}
			if !seen[s] {
				seen[s] = true
				p.Statuses = append(p.Statuses, s)
			}
		}
	}
	loc := time.UTC
	if v := strings.TrimSpace(q.Get("tz")); v != "" {
		l, err := time.LoadLocation(v)
		if err != nil || len(v) > 64 || strings.HasPrefix(v, "/") || strings.Contains(v, "..") {
			return p, fault.New(fault.Invalid, "invalid_timezone", "tz must be a time zone name such as Asia/Kolkata.")
		}
		loc = l
	}
	for _, d := range []struct {
		key string
		dst **time.Time
	}{{"from", &p.From}, {"to", &p.To}} {
		if v := strings.TrimSpace(q.Get(d.key)); v != "" {
			t, err := time.ParseInLocation(time.DateOnly, v, loc)
			if err != nil {
				return p, fault.Invalidf("invalid_date", "The %s date must look like 2025-01-31.", d.key)
			}
			*d.dst = &t
		}
	}
	if p.From != nil && p.To != nil && p.To.Before(*p.From) {
		return p, fault.New(fault.Invalid, "invalid_date_range", "The to date must be on or after the from date.")
	}
	switch v := strings.TrimSpace(q.Get("sort")); v {
	case "", SortNewest:
	case SortName:
		p.Sort = SortName
	default:
		return p, fault.New(fault.Invalid, "invalid_sort", "Sort by newest or name.")
	}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1_000_000 {
			return p, fault.New(fault.Invalid, "invalid_page", "page must be a whole number from 1.")
		}
		p.Page = n
	}
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || !validPageSize(n) {
			return p, fault.New(fault.Invalid, "invalid_page_size", "pageSize must be 10, 20, 30 or 50.")
		}
		p.PageSize = n
	}
	p.Query = strings.TrimSpace(q.Get("q"))
	if utf8.RuneCountInString(p.Query) > MaxQueryLength {
		return p, fault.Invalidf("query_too_long", "Search text must be at most %d characters.", MaxQueryLength)
	}
	return p, nil
}

func validPageSize(n int) bool {
	for _, s := range PageSizes {
		if s == n {
			return true
		}
	}
	return false
}

// Offset is the number of rows before the page.
func (p ListParams) Offset() int { return (p.Page - 1) * p.PageSize }
