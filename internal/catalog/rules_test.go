package catalog_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/fault"
)

func limit(n int64) *int64 { return &n }

// Spec §6/§9: "Free: 2 products … 'Free plan limited to 2 products. Upgrade
// to Pro for 50 listings.'"; "Pro: 50 listings, 10 galleries"; "no galleries"
// on Free; Enterprise unlimited.
func TestPlanLimits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		err     error
		message string
	}{
		{"free, first product", catalog.CheckProductLimit(limit(2), 0), ""},
		{"free, second product", catalog.CheckProductLimit(limit(2), 1), ""},
		{"free, third product", catalog.CheckProductLimit(limit(2), 2), "Free plan limited to 2 products. Upgrade to Pro for 50 listings."},
		{"free after a trial with 7 products", catalog.CheckProductLimit(limit(2), 7), "Free plan limited to 2 products. Upgrade to Pro for 50 listings."},
		{"pro, 50th product", catalog.CheckProductLimit(limit(50), 49), ""},
		{"pro, 51st product", catalog.CheckProductLimit(limit(50), 50), "Your plan is limited to 50 products. Delete a product to add another."},
		{"enterprise", catalog.CheckProductLimit(nil, 10000), ""},
		{"free gallery", catalog.CheckGalleryLimit(limit(0), 0), "Galleries are a Pro feature (Pro allows up to 10 galleries and public sharing of collections)."},
		{"pro, 10th gallery", catalog.CheckGalleryLimit(limit(10), 9), ""},
		{"pro, 11th gallery", catalog.CheckGalleryLimit(limit(10), 10), "Pro allows up to 10 galleries. Delete a gallery to create another."},
		{"enterprise gallery", catalog.CheckGalleryLimit(nil, 500), ""},
	} {
		if c.message == "" {
			require.NoError(t, c.err, c.name)
			continue
		}
		fe, ok := fault.As(c.err)
		require.True(t, ok, c.name)
		require.Equal(t, fault.Forbidden, fe.Kind, c.name)
		require.Equal(t, c.message, fe.Message, c.name)
	}
}

// Spec §4: "List labels: 3D ready — Configure, Processing 3D…, Failed."
func TestStatusLabels(t *testing.T) {
	t.Parallel()
	require.Equal(t, "3D ready — Configure", catalog.StatusLabel("ready"))
	require.Equal(t, "Processing 3D…", catalog.StatusLabel("processing"))
	require.Equal(t, "Failed", catalog.StatusLabel("error"))
}

func TestInputRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want, code string
	}{
		{"", "", ""},
		{" https://shop.example.com/a?b=1 ", "https://shop.example.com/a?b=1", ""},
		{"http://shop.example.com", "http://shop.example.com", ""},
		{"javascript:alert(1)", "", "invalid_product_url"},
		{"data:text/html,hi", "", "invalid_product_url"},
		{"ftp://example.com/x", "", "invalid_product_url"},
		{"shop.example.com", "", "invalid_product_url"},
		{"https://user:pw@example.com", "", "invalid_product_url"},
		{"https://", "", "invalid_product_url"},
	} {
		got, err := catalog.CleanProductURL(c.in)
		if c.code == "" {
			require.NoError(t, err, c.in)
			require.Equal(t, c.want, got, c.in)
			continue
		}
		fe, _ := fault.As(err)
		require.NotNil(t, fe, c.in)
		require.Equal(t, c.code, fe.Code, c.in)
	}

	name, err := catalog.CleanName("product", "  Oak \t chair ")
	require.NoError(t, err)
	require.Equal(t, "Oak chair", name)
	_, err = catalog.CleanName("gallery", string(make([]rune, 101)))
	require.Error(t, err)
	_, err = catalog.CleanName("catalog", " ")
	require.EqualError(t, err, "Please enter a catalog name.")

	tags, err := catalog.CleanTags([]string{"Red", " red ", "big  sale"})
	require.NoError(t, err)
	require.Equal(t, []string{"Red", "big sale"}, tags)
	many := make([]string, 21)
	for i := range many {
		many[i] = string(rune('a' + i))
	}
	_, err = catalog.CleanTags(many)
	require.EqualError(t, err, "A product can have at most 20 tags.")

	_, err = catalog.CleanProductIDs([]string{"a", "a"}, "")
	require.EqualError(t, err, "Each product can appear in a gallery only once.")
	_, err = catalog.CleanProductIDs([]string{"a"}, "b")
	require.EqualError(t, err, "Choose the cover from the gallery's products.")
}

// Spec §5: "created on or after the from date and on or before the to
// date. With no status checkbox ticked, all are shown." §9: "Page size
// options 10, 20, 30, 50 (default 10)". §2: "Sort menu: Newest (default) or Name".
func TestParseListParams(t *testing.T) {
	t.Parallel()
	day := func(s string) *time.Time { d, _ := time.Parse(time.DateOnly, s); return &d }
	kolkata := func(s string) *time.Time {
		loc, err := time.LoadLocation("Asia/Kolkata")
		require.NoError(t, err)
		d, _ := time.ParseInLocation(time.DateOnly, s, loc)
		return &d
	}
	for _, c := range []struct {
		query string
		want  catalog.ListParams
		code  string
	}{
		{"", catalog.ListParams{Sort: "newest", Page: 1, PageSize: 10}, ""},
		{"status=", catalog.ListParams{Sort: "newest", Page: 1, PageSize: 10}, ""},
		{"status=Ready,error,ready", catalog.ListParams{Statuses: []string{"ready", "error"}, Sort: "newest", Page: 1, PageSize: 10}, ""},
		{"from=2025-01-31&to=2025-01-31", catalog.ListParams{From: day("2025-01-31"), To: day("2025-01-31"), Sort: "newest", Page: 1, PageSize: 10}, ""},
		{"sort=name&page=3&pageSize=50&q=+oak+", catalog.ListParams{Sort: "name", Page: 3, PageSize: 50, Query: "oak"}, ""},
		{"from=2025-01-31&tz=Asia/Kolkata", catalog.ListParams{From: kolkata("2025-01-31"), Sort: "newest", Page: 1, PageSize: 10}, ""},
		{"tz=Mars/Olympus", catalog.ListParams{}, "invalid_timezone"},
		{"tz=../../etc/passwd", catalog.ListParams{}, "invalid_timezone"},
		{"status=live,draft", catalog.ListParams{Statuses: []string{"draft"}, Live: true, Sort: "newest", Page: 1, PageSize: 10}, ""},
		{"status=needs_attention", catalog.ListParams{}, "invalid_status"},
		{"from=31/01/2025", catalog.ListParams{}, "invalid_date"},
		{"from=2025-02-01&to=2025-01-31", catalog.ListParams{}, "invalid_date_range"},
		{"sort=oldest", catalog.ListParams{}, "invalid_sort"},
		{"page=-1", catalog.ListParams{}, "invalid_page"},
		{"pageSize=25", catalog.ListParams{}, "invalid_page_size"},
		{"pageSize=1000", catalog.ListParams{}, "invalid_page_size"},
	} {
		v, err := url.ParseQuery(c.query)
		require.NoError(t, err)
		got, err := catalog.ParseListParams(v)
		if c.code != "" {
			fe, _ := fault.As(err)
			require.NotNil(t, fe, c.query)
			require.Equal(t, c.code, fe.Code, c.query)
			continue
		}
		require.NoError(t, err, c.query)
		require.Equal(t, c.want, got, c.query)
	}
}
