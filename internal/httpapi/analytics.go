package httpapi

import (
	"encoding/csv"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/analytics"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/subscription"
)

// analyticsTier is the caller's analytics tier from their effective plan
// (trial included): free → basic, anything else → premium (spec §6). It is
// decided here, on the server, for every request.
func analyticsTier(r *http.Request, subs *subscription.Service, d Deps) (string, error) {
	v, err := subs.Get(r.Context(), d.DB, currentWorkspace(r))
	if err != nil {
		return "", err
	}
	if v.EffectivePlan == subscription.PlanFree {
		return analytics.TierBasic, nil
	}
	return analytics.TierPremium, nil
}

// analyticsReply is the Business Overview payload plus where its regions come
// from ("proxy-header" when ANALYTICS_COUNTRY_HEADER is set, else
// "time-zone"), which the page names next to Top Regions.
type analyticsReply struct {
	analytics.Payload
	RegionSource string `json:"regionSource"`
}

// getAnalytics serves GET /api/analytics: the Business Overview payload for
// the caller's shoppers. Premium filters from a basic plan are refused (403)
// and premium fields are left out of the payload.
func getAnalytics(rd *analytics.Reader, subs *subscription.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		tier, err := analyticsTier(r, subs, d)
		if err != nil {
			return err
		}
		f, err := analytics.ParseFilters(r.URL.Query(), tier, time.Now())
		if err != nil {
			return err
		}
		p, err := rd.Report(r.Context(), currentWorkspace(r), f, tier)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, analyticsReply{Payload: p, RegionSource: d.Shoppers.RegionSource()})
		return nil
	}
}

var errPremiumOnly = fault.New(fault.Forbidden, "premium_feature", analytics.DrilldownMessage)

// premiumFilters reads the filters of a premium-only analytics route,
// refusing basic plans with refusal.
func premiumFilters(r *http.Request, subs *subscription.Service, d Deps, refusal error) (analytics.Filters, error) {
	tier, err := analyticsTier(r, subs, d)
	if err != nil {
		return analytics.Filters{}, err
	}
	if tier != analytics.TierPremium {
		return analytics.Filters{}, refusal
	}
	return analytics.ParseFilters(r.URL.Query(), tier, time.Now())
}

// getAnalyticsBreakdowns serves GET /api/analytics/breakdowns (premium): the
// Breakdowns drawer, including the store-attributed funnel.
func getAnalyticsBreakdowns(rd *analytics.Reader, subs *subscription.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		f, err := premiumFilters(r, subs, d, errPremiumOnly)
		if err != nil {
			return err
		}
		items, approximate, err := rd.BreakdownsReport(r.Context(), currentWorkspace(r), f)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": items, "approximate": approximate})
		return nil
	}
}

// exportAnalytics serves GET /api/analytics/export.csv (premium): the
// screen's funnel for all products and for each product, by name
// (Reader.ExportRows).
func exportAnalytics(rd *analytics.Reader, subs *subscription.Service, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		f, err := premiumFilters(r, subs, d, fault.New(fault.Forbidden, "premium_feature", "Export is part of the Pro plan."))
		if err != nil {
			return err
		}
		rows, err := rd.ExportRows(r.Context(), currentWorkspace(r), f)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="analytics.csv"`)
		w.Header().Set("Cache-Control", "no-store")
		cw := csv.NewWriter(w)
		for _, row := range rows {
			for i, cell := range row {
				row[i] = csvSafe(cell)
			}
			_ = cw.Write(row)
		}
		cw.Flush()
		return nil
	}
}

// csvSafe defuses spreadsheet formulas in values that came from shoppers
// (sources, regions).
func csvSafe(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@') {
		return "'" + s
	}
	return s
}

// productAnalyticsReply is the product page's tiles with their
// definitions (label, definition, unit), shown in the tiles' tooltips.
type productAnalyticsReply struct {
	analytics.ProductSummary
	Definitions map[string]analytics.Definition `json:"definitions"`
}

// getProductAnalytics serves GET /api/products/{id}/analytics: the product
// page's tiles (Engagement, Hotspot CTR, Views) over the range (default 7d).
// Another merchant's product (or a missing one) is 404.
func getProductAnalytics(rd *analytics.Reader, d Deps) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if d.Catalog != nil {
			if _, err := d.Catalog.Product(r.Context(), currentWorkspace(r), chi.URLParam(r, "id")); err != nil {
				return err
			}
		}
		q := r.URL.Query()
		q.Del("device")
		q.Del("source")
		q.Del("region")
		f, err := analytics.ParseFilters(q, analytics.TierBasic, time.Now())
		if err != nil {
			return err
		}
		s, err := rd.Product(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), f)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, productAnalyticsReply{ProductSummary: s, Definitions: analytics.ProductDefinitions()})
		return nil
	}
}
