package account

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/currency"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/pgdb"
)

// ResetTokenLifetime is how long a password reset link works (once).
const ResetTokenLifetime = time.Hour

// SubscriptionOpener opens a new user's subscription inside the signup
// transaction (subscription.Service satisfies it).
type SubscriptionOpener interface {
	Open(ctx context.Context, tx pgx.Tx, userID string) error
}

// Options configure a Service; zero values are sensible for tests.
type Options struct {
	SignupMode    string // "open" or "invite"
	PublicBaseURL string // media URLs and reset links start here
	Google        *GoogleVerifier
	// Mailer queues account mail in the request's transaction (mail.Queue
	// in servers; the HTTP tests send at once with mail.Immediate).
	Mailer     mail.Enqueuer
	Bucket     *blob.Bucket
	HashParams HashParams
	// Revokers end API keys and webhooks when sessions end or a reset
	// proves a pre-registered address (see AccessRevoker).
	Revokers []AccessRevoker
	// Erasure queues an account's erasure (RequestErasure); cmd/api wires
	// internal/privacy's scheduler.
	Erasure ErasureScheduler
	// BeforeErasure runs first in the erasure request's transaction (the
	// team rules: an owner transfers or deletes a workspace with members,
	// memberships end); nil: nothing.
	BeforeErasure func(ctx context.Context, tx pgx.Tx, userID string, deleteWorkspace bool) error
	Logger        *slog.Logger
	Now           func() time.Time
}

// Service runs every account use case.
type Service struct {
	db    *pgxpool.Pool
	store *eventstore.Store
	subs  SubscriptionOpener
	opt   Options
	dummy string // a hash verified when no account matches, so timing reveals nothing
	// hashing holds one token per argon2id computation in progress.
	hashing chan struct{}
	// decoding holds one token per avatar/logo being decoded, so parallel
	// uploads cannot add up their pixel buffers without bound.
	decoding chan struct{}
	// hashes counts argon2id computations (PasswordHashes).
	hashes atomic.Int64
}

// NewService builds the account service.
func NewService(db *pgxpool.Pool, store *eventstore.Store, subs SubscriptionOpener, opt Options) (*Service, error) {
	if opt.HashParams == (HashParams{}) {
		opt.HashParams = DefaultHashParams
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Mailer == nil {
		opt.Mailer = mail.Immediate{Sender: mail.Log{Logger: opt.Logger}}
	}
	opt.PublicBaseURL = strings.TrimRight(opt.PublicBaseURL, "/")
	dummy, err := HashPassword("timing-equaliser", opt.HashParams)
	if err != nil {
		return nil, err
	}
	return &Service{db: db, store: store, subs: subs, opt: opt, dummy: dummy, hashing: hashSlots(), decoding: make(chan struct{}, 2)}, nil
}

// User is the full user record the API returns (spec §3 "Auth user").
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	FirstName string    `json:"firstName"`
	LastName  string    `json:"lastName"`
	AvatarURL *string   `json:"avatarUrl"`
	CreatedAt time.Time `json:"createdAt"`
	AvatarKey string    `json:"-"`
	// EmailVerified: the owner opened the link mailed at sign-up (or the
	// address came from Google, or a reset link reached it).
	EmailVerified bool `json:"emailVerified"`
	// SessionVersion goes into new session tokens; see SessionValid.
	SessionVersion int64 `json:"-"`
}

// Branding is a merchant's brand as shown on share pages and embeds.
type Branding struct {
	BrandName  string  `json:"brandName"`
	BrandColor string  `json:"brandColor"`
	LogoURL    *string `json:"logoUrl"`
	LogoKey    string  `json:"-"`
}

// StoreSettings are the merchant's store-wide settings. DefaultCurrency is
// the currency a new price starts in; nil until the merchant chooses one.
type StoreSettings struct {
	DefaultCurrency *string `json:"defaultCurrency"`
}

// MediaURL is the address of a stored avatar or logo (served by the api's
// /media route, so it never expires like a signed URL would). Like the file
// store's signed URLs it is a same-origin relative URL: the app opened at
// http://192.168.1.20:8080 (make run on a LAN, PUBLIC_BASE_URL unset) loads
// it from there, not from http://localhost:8080 (issue 29 item 10).
func (s *Service) MediaURL(key string) string { return "/media/" + key }

// isMediaURL reports whether u names key's media: the relative form MediaURL
// answers, or the absolute one on PUBLIC_BASE_URL that older answers carried
// (a profile form still open in a tab may send it back).
func (s *Service) isMediaURL(u, key string) bool {
	return u == s.MediaURL(key) || u == s.opt.PublicBaseURL+s.MediaURL(key)
}

func (s *Service) toUser(u userRow) User {
	out := User{ID: u.ID, Email: u.Email, Name: u.Name, FirstName: u.FirstName, LastName: u.LastName, CreatedAt: u.CreatedAt,
		EmailVerified: u.EmailVerified, SessionVersion: u.SessionVersion}
	if u.AvatarKey != nil {
		url := s.MediaURL(*u.AvatarKey)
		out.AvatarURL, out.AvatarKey = &url, *u.AvatarKey
	}
	return out
}

func (s *Service) toBranding(b brandingRow) Branding {
	out := Branding{BrandName: b.Name, BrandColor: b.Color}
	if b.LogoKey != nil {
		url := s.MediaURL(*b.LogoKey)
		out.LogoURL, out.LogoKey = &url, *b.LogoKey
	}
	return out
}

// UserStream is the stream of one user.
func UserStream(userID string) events.Stream {
	return events.Stream{Type: events.StreamUser, ID: userID}
}

func (s *Service) apply(ctx context.Context, tx pgx.Tx, userID string, expected int64, evs ...events.Event) error {
	envs, err := s.store.Append(ctx, tx, UserStream(userID), expected, evs...)
	if err != nil {
		return fmt.Errorf("append to user %s: %w", userID, err)
	}
	for _, e := range envs {
		if err := Project(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

// Get returns a user; a missing user is a NotFound fault.
func (s *Service) Get(ctx context.Context, q pgdb.Querier, userID string) (User, error) {
	u, err := loadUser(ctx, q, userID)
	if err != nil {
		return User{}, err
	}
	return s.toUser(u), nil
}

// Branding returns a user's brand, or the defaults ("Your Brand", #2E5BBA).
func (s *Service) Branding(ctx context.Context, q pgdb.Querier, userID string) (Branding, error) {
	b, err := loadBranding(ctx, q, userID)
	if err != nil {
		return Branding{}, err
	}
	return s.toBranding(b), nil
}

// PublicBrand is the branding shoppers see: the same as Branding, except that the
// name is "" while the merchant has not named a brand. The settings form starts
// from the placeholder "Your Brand"; a public page, feed or oEmbed answer must
// not present that placeholder as the product's brand (merchant walk 5).
func (s *Service) PublicBrand(ctx context.Context, q pgdb.Querier, userID string) (Branding, error) {
	b, err := s.Branding(ctx, q, userID)
	if err != nil {
		return Branding{}, err
	}
	if name := strings.TrimSpace(b.BrandName); name == "" || name == DefaultBrandName {
		b.BrandName = ""
	}
	return b, nil
}

var (
	errEmailTaken      = fault.New(fault.Conflict, "email_taken", MsgEmailTaken)
	errInvalidLogin    = fault.New(fault.Unauthorized, "invalid_credentials", MsgInvalidLogin)
	errInviteRequired  = fault.New(fault.Forbidden, "invite_required", "Sign-up is by invitation only. Please enter your invite code.")
	errInviteInvalid   = fault.New(fault.Forbidden, "invite_invalid", "This invite code is not valid for this email address, or it has expired or been used.")
	errResetInvalid    = fault.New(fault.Invalid, "reset_token_invalid", "This password reset link is invalid or has expired. Please request a new one.")
	errNotYourAvatar   = fault.New(fault.Invalid, "avatar_url_invalid", "To change your avatar, upload an image; avatarUrl can only be kept or set to null.")
	errPasswordMissing = fault.New(fault.Invalid, "password_required", MsgEnterPassword)
)

func (s *Service) inviteMode() bool { return s.opt.SignupMode == "invite" }

// SignupMode is "invite" or "open"; the web app reads it from GET /api/config
// so the signup form asks for an invite code only when one is required.
func (s *Service) SignupMode() string {
	if s.inviteMode() {
		return "invite"
	}
	return "open"
}

// register creates a user, its credentials and its subscription in tx.
func (s *Service) register(ctx context.Context, tx pgx.Tx, email string, names Names, method string) (userRow, error) {
	id := uuid.NewString()
	ctx = withActor(ctx, id)
	now := s.opt.Now().UTC()
	if err := insertPII(ctx, tx, id, email, names, now); err != nil {
		return userRow{}, err
	}
	if err := s.apply(ctx, tx, id, 0, events.UserRegistered{UserID: id, Method: method, At: now}); err != nil {
		return userRow{}, err
	}
	if err := s.subs.Open(ctx, tx, id); err != nil {
		return userRow{}, fmt.Errorf("open subscription: %w", err)
	}
	return loadUser(ctx, tx, id)
}

func withActor(ctx context.Context, userID string) context.Context {
	md := eventstore.MetadataFrom(ctx)
	if md.Actor == "" {
		md.Actor = "user-" + userID
	}
	return eventstore.WithMetadata(ctx, md)
}

// ErrEmailTaken is what Signup returns for an address that already has an
// account, after mailing its owner. The HTTP layer answers it exactly like a
// new sign-up (no account enumeration); other callers may report it.
var ErrEmailTaken = errEmailTaken

// Signup creates a password account (spec §5 rules), with its Free
// subscription, in one transaction. In invite mode a valid invite code for
// the address is required and is used up; it is checked before the address,
// so without an invite nobody learns whether an address has an account.
// Both outcomes cost one password hash and send one mail (the verification
// link, or a note to the owner of the taken address), so neither the answer
// nor the work done tells them apart.
func (s *Service) Signup(ctx context.Context, in SignupInput) (User, error) {
	if err := ValidateSignup(in); err != nil {
		return User{}, err
	}
	email := NormalizeEmail(in.Email)
	hash, err := s.hashPassword(ctx, in.Password)
	if err != nil {
		return User{}, err
	}
	var u userRow
	var taken bool
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		var claim func(userID string) error
		if s.inviteMode() {
			if strings.TrimSpace(in.InviteCode) == "" {
				return errInviteRequired
			}
			c, err := s.lockInvite(ctx, tx, email, in.InviteCode)
			if err != nil {
				return err
			}
			claim = c
		}
		if owner, err := userByEmail(ctx, tx, email); err == nil {
			taken = true
			return s.mailSignupAttempt(ctx, tx, owner.ID, email)
		} else if !fault.IsKind(err, fault.NotFound) {
			return err
		}
		var err error
		u, err = s.register(ctx, tx, email, SignupNames(in.Name, email), "password")
		if err != nil {
			return err
		}
		if claim != nil {
			if err := claim(u.ID); err != nil {
				return err
			}
		}
		if err := setPasswordHash(ctx, tx, u.ID, hash); err != nil {
			return err
		}
		// The account signs in from the mailed link, which proves the
		// address is the owner's (Login refuses it until then; Google
		// sign-in will not link to it either). Queued in this transaction:
		// the account and its mail exist together or not at all.
		return s.sendVerification(ctx, tx, u.ID, u.Email)
	})
	if err == nil && taken {
		return User{}, errEmailTaken
	}
	if err != nil {
		return User{}, err
	}
	return s.toUser(u), nil
}

// mailSignupAttempt tells the owner of an address that someone tried to
// sign up with it: the sign-up answer could not say so without telling
// everyone which addresses have accounts.
func (s *Service) mailSignupAttempt(ctx context.Context, tx pgx.Tx, ownerID, email string) error {
	return s.opt.Mailer.Enqueue(ctx, tx, mail.Mail{UserID: ownerID, To: email, Kind: mail.KindSignupAttempt,
		Data: map[string]string{"login": s.opt.PublicBaseURL + "/login", "reset": s.opt.PublicBaseURL + "/forgot-password"}})
}

// Login checks a password. Every failure after validation is the same
// MsgInvalidLogin and costs the same hash, so neither the message nor the
// timing reveals whether the address has an account. A password account
// whose address is not verified yet fails the same way even with the right
// password: it signs in from its mailed link (VerifyEmail). Otherwise "sign
// up with a password, then sign in with it" would answer 200 for a new
// address and 401 for a taken one.
func (s *Service) Login(ctx context.Context, email, password string) (User, error) {
	if err := ValidateLogin(email, password); err != nil {
		return User{}, err
	}
	u, err := userByEmail(ctx, s.db, NormalizeEmail(email))
	if err != nil && !fault.IsKind(err, fault.NotFound) {
		return User{}, err
	}
	hash, found := s.dummy, false
	if err == nil {
		h, ok, err := passwordHash(ctx, s.db, u.ID)
		if err != nil {
			return User{}, err
		}
		if ok {
			hash, found = h, true
		}
	}
	match, err := s.verifyPassword(ctx, password, hash)
	if err != nil {
		return User{}, fmt.Errorf("verify password: %w", err)
	}
	if !match || !found || !u.EmailVerified {
		return User{}, errInvalidLogin
	}
	return s.toUser(u), nil
}

// Google signs in with a Google ID token whose nonce this server issued for
// the attempt (GoogleNonce) and that was not used before: a known Google identity signs in;
// a verified address that already has an account is linked to it; anything
// else creates an account (in invite mode only with an invite for the
// address, by code or, since Google verified the address, by the address).
func (s *Service) Google(ctx context.Context, credential, inviteCode string) (User, error) {
	id, err := s.opt.Google.Verify(ctx, credential)
	if err != nil {
		return User{}, err
	}
	if err := s.useGoogleNonce(ctx, id.Nonce); err != nil {
		return User{}, err
	}
	var u userRow
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		var userID string
		err := tx.QueryRow(ctx, `SELECT user_id FROM google_identities WHERE subject = $1`, id.Subject).Scan(&userID)
		switch {
		case err == nil:
			u, err = loadUser(ctx, tx, userID)
			return err
		case !errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("read google identity: %w", err)
		}
		u, err = userByEmail(ctx, tx, id.Email)
		if err != nil && !fault.IsKind(err, fault.NotFound) {
			return err
		}
		if err == nil && !u.EmailVerified {
			// Anyone can sign up with someone else's address; linking a
			// verified Google identity to that account would hand the
			// pre-registered account (and its sessions) to the attacker's
			// victim or vice versa. The owner verifies or resets first.
			return errGoogleUnverified
		}
		if err != nil { // a new account
			var claim func(string) error
			if s.inviteMode() {
				if claim, err = s.lockInviteForGoogle(ctx, tx, id.Email, inviteCode); err != nil {
					return err
				}
			}
			names := SignupNames(id.Name, id.Email)
			if id.GivenName != "" {
				names = Names{Name: strings.TrimSpace(id.GivenName + " " + id.FamilyName), FirstName: id.GivenName, LastName: id.FamilyName}
			}
			if u, err = s.register(ctx, tx, id.Email, names, "google"); err != nil {
				if errors.Is(err, errEmailTaken) { // only an account being erased holds it now
					return errErasing
				}
				return err
			}
			if claim != nil {
				if err := claim(u.ID); err != nil {
					return err
				}
			}
			if err := markVerified(ctx, tx, u.ID, s.opt.Now().UTC()); err != nil {
				return err
			}
			if u, err = loadUser(ctx, tx, u.ID); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO google_identities (subject, user_id) VALUES ($1, $2)`, id.Subject, u.ID)
		if err != nil {
			return fmt.Errorf("link google identity: %w", err)
		}
		return nil
	})
	if err != nil {
		return User{}, err
	}
	return s.toUser(u), nil
}

// Optional distinguishes an absent JSON field from null.
type Optional[T any] struct {
	Set   bool
	Value *T
}

// ProfilePatch is PATCH /users/me; nil names are kept as they are.
type ProfilePatch struct {
	FirstName *string
	LastName  *string
	AvatarURL Optional[string]
}

// UpdateProfile saves trimmed names and rebuilds the full name (spec §4,
// §5). avatarUrl may be kept as it is or set to null (removing the avatar);
// a new avatar is uploaded with SetAvatar.
func (s *Service) UpdateProfile(ctx context.Context, userID string, p ProfilePatch) (User, error) {
	var oldKey string
	u, err := s.changeUser(ctx, func(tx pgx.Tx) (string, error) {
		cur, err := lockUser(ctx, tx, userID)
		if err != nil {
			return "", err
		}
		first, last := cur.FirstName, cur.LastName
		if p.FirstName != nil {
			first = *p.FirstName
		}
		if p.LastName != nil {
			last = *p.LastName
		}
		names, err := ProfileNames(first, last, cur.Email)
		if err != nil {
			return "", err
		}
		var evs []events.Event
		if names != (Names{Name: cur.Name, FirstName: cur.FirstName, LastName: cur.LastName}) {
			if err := updatePIINames(ctx, tx, userID, names, s.opt.Now().UTC()); err != nil {
				return "", err
			}
			evs = append(evs, events.ProfileUpdated{UserID: userID})
		}
		if p.AvatarURL.Set {
			switch {
			case p.AvatarURL.Value == nil || *p.AvatarURL.Value == "":
				if cur.AvatarKey != nil {
					oldKey = *cur.AvatarKey
					evs = append(evs, events.AvatarChanged{UserID: userID})
				}
			case cur.AvatarKey == nil || !s.isMediaURL(*p.AvatarURL.Value, *cur.AvatarKey):
				return "", errNotYourAvatar
			}
		}
		return userID, s.apply(ctx, tx, userID, cur.Version, evs...)
	})
	if err != nil {
		return User{}, err
	}
	s.deleteBlob(ctx, oldKey)
	return u, nil
}

// SetAvatar stores a processed avatar (ProcessAvatar) and points the user at it.
func (s *Service) SetAvatar(ctx context.Context, userID string, data []byte) (User, error) {
	key, img, err := s.processUpload(ctx, "avatars", userID, data, ProcessAvatar)
	if err != nil {
		return User{}, err
	}
	return s.swapAvatar(ctx, userID, key, img)
}

// RemoveAvatar clears the avatar (the letter fallback shows again).
func (s *Service) RemoveAvatar(ctx context.Context, userID string) (User, error) {
	return s.swapAvatar(ctx, userID, "", processedImage{})
}

func (s *Service) swapAvatar(ctx context.Context, userID, key string, img processedImage) (User, error) {
	if key != "" {
		if err := s.writeBlob(ctx, key, img); err != nil {
			return User{}, err
		}
	}
	var oldKey string
	u, err := s.changeUser(ctx, func(tx pgx.Tx) (string, error) {
		cur, err := lockUser(ctx, tx, userID)
		if err != nil {
			return "", err
		}
		if cur.AvatarKey != nil {
			oldKey = *cur.AvatarKey
		}
		if oldKey == "" && key == "" {
			return userID, nil // no avatar before or after: nothing to record
		}
		return userID, s.apply(ctx, tx, userID, cur.Version, events.AvatarChanged{UserID: userID, AvatarKey: key})
	})
	if err != nil {
		s.deleteBlob(ctx, key)
		return User{}, err
	}
	s.deleteBlob(ctx, oldKey)
	return u, nil
}

// UpdateBranding saves the brand name and a #RRGGBB colour.
func (s *Service) UpdateBranding(ctx context.Context, userID, name, color string) (Branding, error) {
	name, color, err := ValidateBranding(name, color)
	if err != nil {
		return Branding{}, err
	}
	return s.changeBranding(ctx, userID, func(b *brandingRow) { b.Name, b.Color = name, color })
}

// StoreSettings returns a user's store settings (DefaultCurrency nil when
// never chosen).
func (s *Service) StoreSettings(ctx context.Context, q pgdb.Querier, userID string) (StoreSettings, error) {
	return loadStoreSettings(ctx, q, userID)
}

// UpdateStoreSettings saves the default currency, which must be one of the
// currencies prices are taken in (internal/currency).
func (s *Service) UpdateStoreSettings(ctx context.Context, userID, defaultCurrency string) (StoreSettings, error) {
	code, err := currency.Check(defaultCurrency)
	if err != nil {
		return StoreSettings{}, err
	}
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		version, err := lockWorkspaceSettings(ctx, tx, userID)
		if err != nil {
			return err
		}
		return s.apply(ctx, tx, userID, version, events.StoreSettingsUpdated{UserID: userID, DefaultCurrency: code})
	})
	if err != nil {
		return StoreSettings{}, err
	}
	return StoreSettings{DefaultCurrency: &code}, nil
}

// SetLogo stores a checked (and for SVG, sanitised) logo.
func (s *Service) SetLogo(ctx context.Context, userID string, data []byte) (Branding, error) {
	key, img, err := s.processUpload(ctx, "logos", userID, data, ProcessLogo)
	if err != nil {
		return Branding{}, err
	}
	if err := s.writeBlob(ctx, key, img); err != nil {
		return Branding{}, err
	}
	b, err := s.changeBranding(ctx, userID, func(b *brandingRow) { b.LogoKey = &key })
	if err != nil {
		s.deleteBlob(ctx, key)
	}
	return b, err
}

// RemoveLogo clears the logo.
func (s *Service) RemoveLogo(ctx context.Context, userID string) (Branding, error) {
	return s.changeBranding(ctx, userID, func(b *brandingRow) { b.LogoKey = nil })
}

// lockWorkspaceSettings locks the account whose stream holds a workspace's
// brand and store settings (the workspace's founder: its id is theirs) and
// returns the stream's version. A founder who transferred the workspace and
// then deleted their account still holds them for the new owner; a
// workspace being erased has none to change.
func lockWorkspaceSettings(ctx context.Context, tx pgx.Tx, wsID string) (int64, error) {
	var version int64
	err := tx.QueryRow(ctx, `SELECT u.version FROM users u WHERE u.id = $1 AND NOT `+WorkspaceErasing+` FOR UPDATE`, wsID).Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, errUserNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("lock workspace settings: %w", err)
	}
	return version, nil
}

func (s *Service) changeBranding(ctx context.Context, userID string, change func(*brandingRow)) (Branding, error) {
	var out brandingRow
	var oldKey string
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		version, err := lockWorkspaceSettings(ctx, tx, userID)
		if err != nil {
			return err
		}
		before, err := loadBranding(ctx, tx, userID)
		if err != nil {
			return err
		}
		out = before
		change(&out)
		if before.LogoKey != nil && (out.LogoKey == nil || *out.LogoKey != *before.LogoKey) {
			oldKey = *before.LogoKey
		}
		logo := ""
		if out.LogoKey != nil {
			logo = *out.LogoKey
		}
		return s.apply(ctx, tx, userID, version,
			events.BrandingUpdated{UserID: userID, BrandName: out.Name, BrandColor: out.Color, LogoKey: logo})
	})
	if err != nil {
		return Branding{}, err
	}
	s.deleteBlob(ctx, oldKey)
	return s.toBranding(out), nil
}

// processUpload checks an uploaded image with process (holding a decoding
// slot: a burst of large uploads queues instead of decoding all at once)
// and names its blob dir/userID/random.ext, new for every upload so a
// cached old image is never served under the new one's name.
func (s *Service) processUpload(ctx context.Context, dir, userID string, data []byte,
	process func([]byte) (processedImage, error)) (string, processedImage, error) {
	var img processedImage
	err := s.withSlot(ctx, s.decoding, func() (err error) { img, err = process(data); return err })
	if err != nil {
		return "", processedImage{}, err
	}
	return dir + "/" + userID + "/" + uuid.NewString() + img.Ext, img, nil
}

func (s *Service) writeBlob(ctx context.Context, key string, img processedImage) error {
	if s.opt.Bucket == nil {
		return fault.New(fault.Unavailable, "storage_unavailable", "File storage is not configured on this server.")
	}
	opts := &blob.WriterOptions{ContentType: img.ContentType, CacheControl: "public, max-age=31536000, immutable"}
	if err := s.opt.Bucket.Upload(ctx, key, bytes.NewReader(img.Data), opts); err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	return nil
}

// deleteBlob removes a replaced image after its change committed; a failure
// only leaves an orphan, so it is logged, not returned.
func (s *Service) deleteBlob(ctx context.Context, key string) {
	if key == "" || s.opt.Bucket == nil {
		return
	}
	if err := s.opt.Bucket.Delete(context.WithoutCancel(ctx), key); err != nil {
		s.opt.Logger.Warn("delete replaced image", "key", key, "err", err)
	}
}

func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// RequestPasswordReset mails a single-use link valid for an hour when the
// address has an account, and does nothing visible otherwise: the caller
// answers the same either way (no account enumeration).
func (s *Service) RequestPasswordReset(ctx context.Context, email string) error {
	if err := checkEmail(email); err != nil {
		return err
	}
	email = NormalizeEmail(email)
	token, err := newToken()
	if err != nil {
		return err
	}
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		u, err := userByEmail(ctx, tx, email)
		if fault.IsKind(err, fault.NotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		u, err = lockUser(ctx, tx, u.ID)
		if err != nil {
			return err
		}
		now := s.opt.Now().UTC()
		if _, err := tx.Exec(ctx, `INSERT INTO password_resets (token_hash, user_id, expires_at, created_at) VALUES ($1, $2, $3, $4)`,
			hashToken(token), u.ID, now.Add(ResetTokenLifetime), now); err != nil {
			return fmt.Errorf("store reset token: %w", err)
		}
		if err := s.opt.Mailer.Enqueue(ctx, tx, mail.Mail{UserID: u.ID, To: u.Email, Kind: mail.KindPasswordReset,
			Data: map[string]string{"link": s.opt.PublicBaseURL + "/reset-password?token=" + token}}); err != nil {
			return err
		}
		return s.apply(withActor(ctx, u.ID), tx, u.ID, u.Version, events.PasswordResetRequested{UserID: u.ID, At: now})
	})
}

// ResetPassword sets a new password with a reset token. The token works
// once and for one hour; using it also voids the user's other open tokens.
func (s *Service) ResetPassword(ctx context.Context, token, password string) error {
	if strings.TrimSpace(token) == "" {
		return errResetInvalid
	}
	if password == "" {
		return errPasswordMissing
	}
	if err := ValidateNewPassword(password); err != nil {
		return err
	}
	hash, err := s.hashPassword(ctx, password)
	if err != nil {
		return err
	}
	return pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		var userID string
		var expires time.Time
		var used *time.Time
		err := tx.QueryRow(ctx, `SELECT user_id, expires_at, used_at FROM password_resets WHERE token_hash = $1 FOR UPDATE`,
			hashToken(token)).Scan(&userID, &expires, &used)
		if errors.Is(err, pgx.ErrNoRows) {
			return errResetInvalid
		}
		if err != nil {
			return fmt.Errorf("read reset token: %w", err)
		}
		now := s.opt.Now().UTC()
		if used != nil || !now.Before(expires) {
			return errResetInvalid
		}
		u, err := lockUser(ctx, tx, userID)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL`, userID, now); err != nil {
			return fmt.Errorf("use reset token: %w", err)
		}
		if err := setPasswordHash(ctx, tx, userID, hash); err != nil {
			return err
		}
		// The link reached the mailbox: the address is proven, and every
		// session opened with the old password (perhaps by whoever
		// pre-registered the address) ends, with the API keys. When the
		// address was unproven until now, whoever registered it may have set
		// up integrations (a key, a webhook receiving shoppers' emails):
		// they all go.
		why := SessionsEnded
		if !u.EmailVerified {
			why = AddressProven
		}
		if err := markVerified(ctx, tx, userID, now); err != nil {
			return err
		}
		if err := endSessions(ctx, tx, userID); err != nil {
			return err
		}
		if err := s.endAccess(withActor(ctx, userID), tx, userID, why, now); err != nil {
			return err
		}
		return s.apply(withActor(ctx, userID), tx, userID, u.Version, events.PasswordChanged{UserID: userID, At: now})
	})
}
