package shopify

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/internal/fault"
)

// Merchant-facing errors of the connection.
var (
	ErrBadShop      = fault.New(fault.Invalid, "invalid_shop", "Enter your store's myshopify.com domain, for example my-store.myshopify.com.")
	ErrNoToken      = fault.New(fault.Invalid, "invalid_token", "Paste the Admin API access token of your custom app.")
	ErrNotConnected = fault.New(fault.Conflict, "shopify_not_connected", "Connect your Shopify store first (Settings → Channels).")
	ErrBadProduct   = fault.New(fault.Invalid, "invalid_shopify_product", "Pick the Shopify product to attach the model to.")
)

// TokenKey derives the AES-256 key that seals store tokens from the
// server's secret (JWT_SECRET), as publish.PageTokenKey derives its key:
// every instance derives the same one, and it is useless for anything else.
func TokenKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("photo3d shopify tokens v1"))
	return m.Sum(nil)
}

// Service keeps merchants' store connections and sends models to them.
type Service struct {
	DB      *pgxpool.Pool
	Key     []byte // 32 bytes (TokenKey)
	APIBase string // SHOPIFY_API_BASE; "": the shop's own host
	Now     func() time.Time
	// Client builds a store client; nil: NewClient (tests set Sleep on it).
	Client func(shop, token, apiBase string) *Client
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) client(shop, token string) *Client {
	if s.Client != nil {
		return s.Client(shop, token, s.APIBase)
	}
	return NewClient(shop, token, s.APIBase)
}

func (s *Service) aead() (cipher.AEAD, error) {
	if len(s.Key) != 32 {
		return nil, errors.New("shopify token key must be 32 bytes")
	}
	b, err := aes.NewCipher(s.Key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// seal encrypts a token bound to its owner (the user id is the additional
// data: a sealed token copied to another merchant's row does not open).
func (s *Service) seal(userID, token string) ([]byte, error) {
	g, err := s.aead()
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, g.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return g.Seal(nonce, nonce, []byte(token), []byte(userID)), nil
}

func (s *Service) open(userID string, sealed []byte) (string, error) {
	g, err := s.aead()
	if err != nil {
		return "", err
	}
	if len(sealed) < g.NonceSize() {
		return "", errors.New("sealed token too short")
	}
	out, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], []byte(userID))
	if err != nil {
		return "", fmt.Errorf("open shopify token: %w", err)
	}
	return string(out), nil
}

// Connection is what the API shows of a store connection (never the token).
type Connection struct {
	Shop        string     `json:"shop"`
	Connected   bool       `json:"connected"`
	ConnectedAt *time.Time `json:"connectedAt,omitempty"`
}

// Connect checks the token against the store (reading its name) and keeps
// it sealed; a refused token is refused here, not at the first send.
func (s *Service) Connect(ctx context.Context, userID, shop, token string) (Connection, error) {
	shop = strings.ToLower(strings.TrimSpace(shop))
	shop = strings.TrimPrefix(strings.TrimPrefix(shop, "https://"), "http://")
	shop = strings.TrimSuffix(shop, "/")
	token = strings.TrimSpace(token)
	if !ValidShop.MatchString(shop) {
		return Connection{}, ErrBadShop
	}
	if token == "" || len(token) > 256 || strings.ContainsAny(token, " \r\n") {
		return Connection{}, ErrNoToken
	}
	if _, err := s.client(shop, token).ShopName(ctx); err != nil {
		return Connection{}, err
	}
	sealed, err := s.seal(userID, token)
	if err != nil {
		return Connection{}, err
	}
	now := s.now().UTC()
	_, err = s.DB.Exec(ctx, `INSERT INTO channel_shopify (user_id, shop, token_sealed, connected_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (user_id) DO UPDATE SET shop = EXCLUDED.shop, token_sealed = EXCLUDED.token_sealed, connected_at = EXCLUDED.connected_at`,
		userID, shop, sealed, now)
	if err != nil {
		return Connection{}, fmt.Errorf("store shopify connection: %w", err)
	}
	return Connection{Shop: shop, Connected: true, ConnectedAt: &now}, nil
}

// Status is the merchant's connection (Connected false when none).
func (s *Service) Status(ctx context.Context, userID string) (Connection, error) {
	var c Connection
	var at time.Time
	err := s.DB.QueryRow(ctx, `SELECT shop, connected_at FROM channel_shopify WHERE user_id = $1`, userID).Scan(&c.Shop, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return Connection{}, nil
	}
	if err != nil {
		return Connection{}, fmt.Errorf("read shopify connection: %w", err)
	}
	c.Connected, c.ConnectedAt = true, &at
	return c, nil
}

// Disconnect deletes the merchant's token (and what we remember sending).
func (s *Service) Disconnect(ctx context.Context, userID string) error {
	_, err := s.DB.Exec(ctx, `WITH m AS (DELETE FROM channel_shopify_media WHERE user_id = $1) DELETE FROM channel_shopify WHERE user_id = $1`, userID)
	if err != nil {
		return fmt.Errorf("delete shopify connection: %w", err)
	}
	return nil
}

func (s *Service) connected(ctx context.Context, userID string) (*Client, error) {
	var shop string
	var sealed []byte
	err := s.DB.QueryRow(ctx, `SELECT shop, token_sealed FROM channel_shopify WHERE user_id = $1`, userID).Scan(&shop, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotConnected
	}
	if err != nil {
		return nil, fmt.Errorf("read shopify connection: %w", err)
	}
	token, err := s.open(userID, sealed)
	if err != nil {
		return nil, err
	}
	return s.client(shop, token), nil
}

// Search lists the merchant's store products matching q.
func (s *Service) Search(ctx context.Context, userID, q string) ([]Product, error) {
	c, err := s.connected(ctx, userID)
	if err != nil {
		return nil, err
	}
	return c.SearchProducts(ctx, q)
}

// Sent is the answer of a send.
type Sent struct {
	ShopifyProductID string  `json:"shopifyProductId"`
	Media            []Media `json:"media"`
	Replaced         int     `json:"replaced"` // media of an earlier send removed
}

// Send attaches files to the store product, then removes what an earlier
// send of this product attached there, so the product shows one model.
// New media are created before old ones are deleted: a failure leaves the
// old model in place rather than none.
func (s *Service) Send(ctx context.Context, userID, productID, shopifyProductID string, files []File) (Sent, error) {
	if !IsGID(shopifyProductID) {
		return Sent{}, ErrBadProduct
	}
	c, err := s.connected(ctx, userID)
	if err != nil {
		return Sent{}, err
	}
	sources, err := c.Stage(ctx, files)
	if err != nil {
		return Sent{}, err
	}
	media, err := c.CreateMedia(ctx, shopifyProductID, files, sources)
	if err != nil {
		return Sent{}, err
	}
	var old []string
	err = s.DB.QueryRow(ctx, `SELECT media_ids FROM channel_shopify_media WHERE user_id = $1 AND product_id = $2 AND shopify_product_id = $3`,
		userID, productID, shopifyProductID).Scan(&old)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Sent{}, fmt.Errorf("read sent media: %w", err)
	}
	ids := make([]string, len(media))
	for i, m := range media {
		ids[i] = m.ID
	}
	_, err = s.DB.Exec(ctx, `INSERT INTO channel_shopify_media (user_id, product_id, shopify_product_id, media_ids, sent_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (user_id, product_id, shopify_product_id) DO UPDATE SET media_ids = EXCLUDED.media_ids, sent_at = EXCLUDED.sent_at`,
		userID, productID, shopifyProductID, ids, s.now().UTC())
	if err != nil {
		return Sent{}, fmt.Errorf("record sent media: %w", err)
	}
	if err := c.DeleteMedia(ctx, shopifyProductID, old); err != nil {
		return Sent{}, err
	}
	return Sent{ShopifyProductID: shopifyProductID, Media: media, Replaced: len(old)}, nil
}
