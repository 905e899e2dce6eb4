// Package shopify sends a product's 3D model and poster to the merchant's
// Shopify store (issue 32, item 2) through the GraphQL Admin API, as a
// custom app's Admin API access token allows: productSearch by title
// (products(query:)), stagedUploadsCreate → upload to the staged target →
// productCreateMedia (MODEL_3D and IMAGE), and productDeleteMedia of what
// we attached before when the merchant sends again. Shopify's cost-based
// rate limit is honoured: a THROTTLED answer waits for the bucket to refill
// at the reported restoreRate, then retries. userErrors become clear
// messages for the merchant.
package shopify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/fault"
)

// APIVersion is the Admin API version every call names.
const APIVersion = "2025-01"

// ValidShop matches a store's permanent domain.
var ValidShop = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$`)

// Errors a merchant can act on.
var (
	ErrBadToken  = fault.New(fault.Invalid, "shopify_token_refused", "Shopify refused the access token. Copy the Admin API access token of your custom app again (it starts with shpat_).")
	ErrNoAccess  = fault.New(fault.Forbidden, "shopify_scope_missing", "The custom app lacks an access scope. Give it read_products and write_products (Admin API access scopes) and install it again.")
	ErrShopDown  = fault.New(fault.Unavailable, "shopify_unavailable", "Shopify did not answer. Please try again in a few minutes.")
	ErrThrottled = fault.New(fault.RateLimited, "shopify_throttled", "Shopify asked us to slow down. Please try again in a minute.")
)

// Client talks to one store.
type Client struct {
	// Base is the API origin: "https://{shop}" unless SHOPIFY_API_BASE
	// points it elsewhere (tests, a proxy).
	Base  string
	Token string
	HTTP  *http.Client
	// Sleep waits between throttled retries; nil: time.Sleep honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxRetries on THROTTLED (default 5).
	MaxRetries int
}

// NewClient returns a client for shop; apiBase overrides the shop's host.
func NewClient(shop, token, apiBase string) *Client {
	base := "https://" + shop
	if apiBase != "" {
		base = strings.TrimSuffix(apiBase, "/")
	}
	return &Client{Base: base, Token: token, HTTP: &http.Client{Timeout: 60 * time.Second}}
}

type gqlError struct {
	Message    string `json:"message"`
	Extensions struct {
		Code string `json:"code"`
	} `json:"extensions"`
}

type gqlResponse struct {
	Data       json.RawMessage `json:"data"`
	Errors     []gqlError      `json:"errors"`
	Extensions struct {
		Cost struct {
			RequestedQueryCost float64 `json:"requestedQueryCost"`
			ThrottleStatus     struct {
				MaximumAvailable   float64 `json:"maximumAvailable"`
				CurrentlyAvailable float64 `json:"currentlyAvailable"`
				RestoreRate        float64 `json:"restoreRate"`
			} `json:"throttleStatus"`
		} `json:"cost"`
	} `json:"extensions"`
}

// Do runs one GraphQL operation and decodes data into out, retrying while
// Shopify answers THROTTLED: it waits (requested − available) / restoreRate
// seconds, the time the leaky bucket needs to hold the query's cost.
func (c *Client) Do(ctx context.Context, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("encode GraphQL request: %w", err)
	}
	retries := c.MaxRetries
	if retries <= 0 {
		retries = 5
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Base+"/admin/api/"+APIVersion+"/graphql.json", bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("build Shopify request: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Shopify-Access-Token", c.Token)
		res, err := c.HTTP.Do(req)
		if err != nil {
			return fmt.Errorf("%w (%v)", ErrShopDown, err)
		}
		raw, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
		res.Body.Close()
		if err != nil {
			return fmt.Errorf("%w (%v)", ErrShopDown, err)
		}
		switch {
		case res.StatusCode == http.StatusUnauthorized:
			return ErrBadToken
		case res.StatusCode == http.StatusForbidden:
			return ErrNoAccess
		case res.StatusCode == http.StatusTooManyRequests && attempt < retries:
			if err := c.sleep(ctx, 2*time.Second); err != nil {
				return err
			}
			continue
		case res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests:
			return fmt.Errorf("%w (HTTP %d)", ErrShopDown, res.StatusCode)
		case res.StatusCode != http.StatusOK:
			return fmt.Errorf("shopify answered HTTP %d", res.StatusCode)
		}
		var g gqlResponse
		if err := json.Unmarshal(raw, &g); err != nil {
			return fmt.Errorf("decode Shopify answer: %w", err)
		}
		if throttled(g.Errors) {
			if attempt >= retries {
				return ErrThrottled
			}
			ts := g.Extensions.Cost.ThrottleStatus
			wait := time.Second
			if ts.RestoreRate > 0 {
				need := math.Max(0, g.Extensions.Cost.RequestedQueryCost-ts.CurrentlyAvailable)
				wait = time.Duration(math.Ceil(need/ts.RestoreRate*1000)) * time.Millisecond
			}
			if err := c.sleep(ctx, max(wait, 100*time.Millisecond)); err != nil {
				return err
			}
			continue
		}
		if len(g.Errors) > 0 {
			for _, e := range g.Errors {
				if e.Extensions.Code == "ACCESS_DENIED" {
					return ErrNoAccess
				}
			}
			return fmt.Errorf("shopify GraphQL error: %s", g.Errors[0].Message)
		}
		if out != nil {
			if err := json.Unmarshal(g.Data, out); err != nil {
				return fmt.Errorf("decode Shopify data: %w", err)
			}
		}
		return nil
	}
}

func throttled(errs []gqlError) bool {
	for _, e := range errs {
		if e.Extensions.Code == "THROTTLED" {
			return true
		}
	}
	return false
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// UserError is one entry of a mutation's userErrors / mediaUserErrors.
type UserError struct {
	Field   []string `json:"field"`
	Message string   `json:"message"`
}

// userErrors turns a mutation's userErrors into one clear error.
func userErrors(what string, ues []UserError) error {
	if len(ues) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(ues))
	for _, u := range ues {
		m := u.Message
		if len(u.Field) > 0 {
			m = strings.Join(u.Field, ".") + ": " + m
		}
		msgs = append(msgs, m)
	}
	return fault.New(fault.Invalid, "shopify_refused", "Shopify refused "+what+": "+strings.Join(msgs, "; "))
}

// Product is a store product as the picker shows it.
type Product struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// ShopName checks the token by reading the shop's name.
func (c *Client) ShopName(ctx context.Context) (string, error) {
	var out struct {
		Shop struct {
			Name string `json:"name"`
		} `json:"shop"`
	}
	if err := c.Do(ctx, `query ShopName { shop { name } }`, nil, &out); err != nil {
		return "", err
	}
	return out.Shop.Name, nil
}

// SearchProducts finds store products whose title matches q (Shopify's
// search syntax: title:*q*), at most 20.
func (c *Client) SearchProducts(ctx context.Context, q string) ([]Product, error) {
	q = strings.NewReplacer(`\`, ``, `"`, ``, `*`, ``, `:`, ` `).Replace(strings.TrimSpace(q))
	search := ""
	if q != "" {
		search = `title:*` + q + `*`
	}
	var out struct {
		Products struct {
			Nodes []Product `json:"nodes"`
		} `json:"products"`
	}
	err := c.Do(ctx, `query ProductSearch($query: String) { products(first: 20, query: $query, sortKey: TITLE) { nodes { id title } } }`,
		map[string]any{"query": search}, &out)
	return out.Products.Nodes, err
}

// File is one file to attach.
type File struct {
	Name, MimeType string
	Resource       string // MODEL_3D or IMAGE
	Data           []byte
	Alt            string
}

type stagedTarget struct {
	URL         string `json:"url"`
	ResourceURL string `json:"resourceUrl"`
	Parameters  []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"parameters"`
}

// Stage uploads the files to Shopify's staged upload targets and returns
// their resource URLs.
func (c *Client) Stage(ctx context.Context, files []File) ([]string, error) {
	input := make([]map[string]any, len(files))
	for i, f := range files {
		input[i] = map[string]any{"resource": f.Resource, "filename": f.Name, "mimeType": f.MimeType,
			"fileSize": fmt.Sprint(len(f.Data)), "httpMethod": "POST"}
	}
	var out struct {
		StagedUploadsCreate struct {
			StagedTargets []stagedTarget `json:"stagedTargets"`
			UserErrors    []UserError    `json:"userErrors"`
		} `json:"stagedUploadsCreate"`
	}
	err := c.Do(ctx, `mutation StagedUploads($input: [StagedUploadInput!]!) { stagedUploadsCreate(input: $input) { stagedTargets { url resourceUrl parameters { name value } } userErrors { field message } } }`,
		map[string]any{"input": input}, &out)
	if err != nil {
		return nil, err
	}
	if err := userErrors("the upload", out.StagedUploadsCreate.UserErrors); err != nil {
		return nil, err
	}
	if len(out.StagedUploadsCreate.StagedTargets) != len(files) {
		return nil, fmt.Errorf("shopify gave %d upload targets for %d files", len(out.StagedUploadsCreate.StagedTargets), len(files))
	}
	urls := make([]string, len(files))
	for i, t := range out.StagedUploadsCreate.StagedTargets {
		if err := c.upload(ctx, t, files[i]); err != nil {
			return nil, err
		}
		urls[i] = t.ResourceURL
	}
	return urls, nil
}

// upload POSTs one file as multipart form data: the target's parameters
// first, the file last, as the staged upload target requires.
func (c *Client) upload(ctx context.Context, t stagedTarget, f File) error {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range t.Parameters {
		if err := mw.WriteField(p.Name, p.Value); err != nil {
			return fmt.Errorf("build upload: %w", err)
		}
	}
	fw, err := mw.CreateFormFile("file", f.Name)
	if err != nil {
		return fmt.Errorf("build upload: %w", err)
	}
	_, _ = fw.Write(f.Data)
	if err := mw.Close(); err != nil {
		return fmt.Errorf("build upload: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, &body)
	if err != nil {
		return fmt.Errorf("build upload: %w", err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%w (upload: %v)", ErrShopDown, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%w (upload answered HTTP %d)", ErrShopDown, res.StatusCode)
	}
	return nil
}

// Media is one media item Shopify created.
type Media struct {
	ID   string `json:"id"`
	Type string `json:"mediaContentType"`
}

// CreateMedia attaches the staged files to the product.
func (c *Client) CreateMedia(ctx context.Context, productID string, files []File, sources []string) ([]Media, error) {
	media := make([]map[string]any, len(files))
	for i, f := range files {
		media[i] = map[string]any{"originalSource": sources[i], "mediaContentType": f.Resource, "alt": f.Alt}
	}
	var out struct {
		ProductCreateMedia struct {
			Media           []Media     `json:"media"`
			MediaUserErrors []UserError `json:"mediaUserErrors"`
		} `json:"productCreateMedia"`
	}
	err := c.Do(ctx, `mutation CreateMedia($productId: ID!, $media: [CreateMediaInput!]!) { productCreateMedia(productId: $productId, media: $media) { media { id mediaContentType } mediaUserErrors { field message } } }`,
		map[string]any{"productId": productID, "media": media}, &out)
	if err != nil {
		return nil, err
	}
	if err := userErrors("the media", out.ProductCreateMedia.MediaUserErrors); err != nil {
		return nil, err
	}
	return out.ProductCreateMedia.Media, nil
}

// DeleteMedia removes media we attached before (a re-publish replaces them).
// Media the merchant already deleted in Shopify is not an error.
func (c *Client) DeleteMedia(ctx context.Context, productID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var out struct {
		ProductDeleteMedia struct {
			DeletedMediaIDs []string    `json:"deletedMediaIds"`
			MediaUserErrors []UserError `json:"mediaUserErrors"`
		} `json:"productDeleteMedia"`
	}
	err := c.Do(ctx, `mutation DeleteMedia($productId: ID!, $mediaIds: [ID!]!) { productDeleteMedia(productId: $productId, mediaIds: $mediaIds) { deletedMediaIds mediaUserErrors { field message } } }`,
		map[string]any{"productId": productID, "mediaIds": ids}, &out)
	if err != nil {
		return err
	}
	var real []UserError
	for _, u := range out.ProductDeleteMedia.MediaUserErrors {
		if !strings.Contains(strings.ToLower(u.Message), "does not exist") {
			real = append(real, u)
		}
	}
	return userErrors("removing the previous model", real)
}

// IsGID reports whether s looks like a Shopify product GID.
func IsGID(s string) bool {
	return strings.HasPrefix(s, "gid://shopify/Product/") && len(s) < 80 && !strings.ContainsAny(s, " \"\\")
}
