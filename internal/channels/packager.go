package channels

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/photo3d/photo3d/internal/channels/fit"
	"github.com/photo3d/photo3d/internal/channels/usdz"
	"github.com/photo3d/photo3d/internal/glbvariants"
)

// Channel files are derived from a published model, per variant, and are
// heavy to make: for an own model of 2 M triangles a commerce GLB took 62 s
// of CPU and a USDZ 91 MB (security review 3, item H1). So they are made
// only by the worker (Build, run by the channel_files job) and requests only
// read them: a file is ready (stored), refused (it cannot be made within its
// budget, and the merchant is told why), or pending (not made yet: the
// request queues the job and answers "not ready yet").

// usdzVersion is part of every USDZ key: a change to what the converter
// writes gives new keys, so no device keeps a file built by older code.
// Version 2 is held to QuickLookBudget (version 1 converted the AR GLB as it
// was, up to 91 MB).
const usdzVersion = "2"

// commerceVersion is part of every commerce GLB key (see usdzVersion).
const commerceVersion = "1"

// metaNotes is the blob metadata key of a package's notes (what was
// reduced and why), read back by Report.
const metaNotes = "p3d-notes"

// refusedSuffix names the record, beside a file's key, that the file cannot
// be made: its body is the reason the merchant reads. It carries the model
// metadata like the files, so the account's erasure deletes it too.
const refusedSuffix = ".refused"

// maxReasonBytes bounds what is read of a refusal record.
const maxReasonBytes = 4 << 10

// Packager reads and (in the worker) builds a model's channel files in the
// blob store, next to the variant GLBs, under keys made of the model key and
// the variant (glbvariants.Hash), so each (version, variant) is built once
// and a new version gets new files.
type Packager struct {
	Bucket *blob.Bucket
}

// NewPackager returns a packager over bucket.
func NewPackager(bucket *blob.Bucket) *Packager { return &Packager{Bucket: bucket} }

// Files are the blob keys of one variant's files.
type Files struct {
	// AR is the variant's AR GLB (its materials as the defaults): the
	// product page's model and Android's Scene Viewer file.
	AR string
	// Commerce is the AR GLB fitted to CommerceBudget (Google, Shopify).
	Commerce string
	// USDZ is the Quick Look file, held to QuickLookBudget.
	USDZ string
}

// FilesOf names v's files of modelKey without building anything.
func FilesOf(modelKey string, v glbvariants.Variant) Files {
	ar := glbvariants.ARKeyOf(modelKey, v)
	dir := strings.TrimSuffix(ar, "ar.glb")
	return Files{AR: ar, Commerce: dir + "commerce.v" + commerceVersion + ".glb", USDZ: dir + "ar.v" + usdzVersion + ".usdz"}
}

// State is where one file stands.
type State struct {
	Ready bool
	// Refused says why the file cannot be made (for the merchant); empty
	// while the file is ready or pending.
	Refused string
}

// Pending reports a file neither made nor refused yet.
func (s State) Pending() bool { return !s.Ready && s.Refused == "" }

// State reads where the file at key stands; it builds nothing.
func (p *Packager) State(ctx context.Context, key string) (State, error) {
	ok, err := p.Bucket.Exists(ctx, key)
	if err != nil {
		return State{}, fmt.Errorf("look up %s: %w", key, err)
	}
	if ok {
		return State{Ready: true}, nil
	}
	return p.refusal(ctx, key)
}

// refusal reads key's refusal record, if any.
func (p *Packager) refusal(ctx context.Context, key string) (State, error) {
	r, err := p.Bucket.NewReader(ctx, key+refusedSuffix, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return State{}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("look up %s: %w", key+refusedSuffix, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxReasonBytes))
	if err != nil {
		return State{}, fmt.Errorf("read %s: %w", key+refusedSuffix, err)
	}
	reason := strings.TrimSpace(string(b))
	if reason == "" {
		reason = "This file could not be made from the model."
	}
	return State{Refused: reason}, nil
}

// Asset is one channel file of a product, as the Channels panel shows it.
type Asset struct {
	Channel   string `json:"channel"` // web, commerce, quick-look
	Label     string `json:"label"`
	VariantID string `json:"variantId,omitempty"`
	Format    string `json:"format"` // glb, usdz
	// State is ready, pending (the worker has not made it yet) or refused
	// (it cannot be made within the budget; Reason says why).
	State     string   `json:"state"`
	Reason    string   `json:"reason,omitempty"`
	Bytes     int64    `json:"bytes"`
	WarnBytes int64    `json:"warnBytes"`
	MaxBytes  int64    `json:"maxBytes"`
	Status    string   `json:"status"` // green, amber, red (of a ready file)
	Notes     []string `json:"notes"`
	Source    string   `json:"source"` // where the budget comes from
}

// Asset states.
const (
	StateReady   = "ready"
	StatePending = "pending"
	StateRefused = "refused"
)

// Report measures every channel file of a model and its variants (the web
// configurator GLB, then per variant the commerce GLB and the Quick Look
// USDZ) as they stand; it builds nothing. pending reports files the worker
// has yet to make: the caller queues the channel_files job for them.
func (p *Packager) Report(ctx context.Context, modelKey string, vs []glbvariants.Variant, names map[string]string) (assets []Asset, pending bool, err error) {
	out := []Asset{}
	add := func(key string, b Budget, a Asset) error {
		m, err := p.measure(ctx, key, b)
		if err != nil {
			return err
		}
		m.Channel, m.Label, m.Format, m.VariantID = a.Channel, a.Label, a.Format, a.VariantID
		pending = pending || m.State == StatePending
		out = append(out, m)
		return nil
	}
	if err := add(glbvariants.ConfiguratorKeyOf(modelKey, vs), WebBudget,
		Asset{Channel: "web", Label: "Web viewer (share page, embed, oEmbed)", Format: "glb"}); err != nil {
		return nil, false, err
	}
	for _, v := range vs {
		f := FilesOf(modelKey, v)
		if err := add(f.Commerce, CommerceBudget,
			Asset{Channel: "commerce", Label: "Google Shopping & Shopify 3D model · " + names[v.ID], Format: "glb", VariantID: v.ID}); err != nil {
			return nil, false, err
		}
		if err := add(f.USDZ, QuickLookBudget,
			Asset{Channel: "quick-look", Label: "iPhone AR Quick Look · " + names[v.ID], Format: "usdz", VariantID: v.ID}); err != nil {
			return nil, false, err
		}
	}
	return out, pending, nil
}

func (p *Packager) measure(ctx context.Context, key string, b Budget) (Asset, error) {
	a := Asset{WarnBytes: b.WarnBytes, MaxBytes: b.MaxBytes, Notes: []string{}, Source: b.Source}
	attrs, err := p.Bucket.Attributes(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		st, err := p.refusal(ctx, key)
		if err != nil {
			return Asset{}, err
		}
		a.State, a.Status = StatePending, "pending"
		if st.Refused != "" {
			a.State, a.Status, a.Reason = StateRefused, "refused", st.Refused
		}
		return a, nil
	}
	if err != nil {
		return Asset{}, fmt.Errorf("read %s: %w", key, err)
	}
	a.State, a.Bytes, a.Status = StateReady, attrs.Size, b.Status(attrs.Size)
	if n := attrs.Metadata[metaNotes]; n != "" {
		a.Notes = strings.Split(n, "\n")
	}
	return a, nil
}

// Writer stores one built file. The worker's writer holds the account's
// file lock and writes nothing once the account's erasure was requested
// (it then returns ErrErasing).
type Writer func(ctx context.Context, key string, data []byte, opts *blob.WriterOptions) error

// ErrErasing stops a build whose account is being erased: nothing more is
// written.
var ErrErasing = errors.New("the account is being erased")

// Built counts what one Build did.
type Built struct {
	Written, Refused int
}

// Build makes every missing file of modelKey and vs, in the order a
// shopper needs them: the configurator GLB, each variant's AR GLB (the
// product page's model), then each variant's commerce GLB and USDZ. Files
// that exist or were refused are left alone, so a build cut short (the
// job's deadline) continues where it stopped. A file that cannot be made
// within its budget, or at all, is refused: a record with the reason takes
// its place. The reductions depend only on the geometry and textures, and
// variants differ only in plain material factors, so each budget's fitting
// is done once per model and shared by every variant. Errors of the blob
// store (or ErrErasing from write) end the build.
func (p *Packager) Build(ctx context.Context, modelKey string, vs []glbvariants.Variant, write Writer) (Built, error) {
	var done Built
	var model []byte
	loadModel := func() error {
		if model != nil {
			return nil
		}
		r, err := p.Bucket.NewReader(ctx, modelKey, nil)
		if err != nil {
			return fmt.Errorf("open model %s: %w", modelKey, err)
		}
		defer r.Close()
		model, err = io.ReadAll(io.LimitReader(r, glbvariants.MaxModelBytes+1))
		if err != nil {
			return fmt.Errorf("read model %s: %w", modelKey, err)
		}
		return nil
	}
	meta := glbvariants.ModelMetadata(modelKey)
	// step makes the file at key when it is neither there nor refused.
	step := func(key, contentType string, build func() ([]byte, []string, error)) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := p.State(ctx, key)
		if err != nil || !st.Pending() {
			return err
		}
		if err := loadModel(); err != nil {
			return err
		}
		out, notes, err := build()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			done.Refused++
			return write(ctx, key+refusedSuffix, []byte(refusalReason(key, err)),
				&blob.WriterOptions{ContentType: "text/plain; charset=utf-8", Metadata: meta})
		}
		opts := &blob.WriterOptions{ContentType: contentType, Metadata: meta}
		if len(notes) > 0 {
			opts.Metadata = map[string]string{metaNotes: strings.Join(notes, "\n"), "model": modelKey}
		}
		done.Written++
		return write(ctx, key, out, opts)
	}
	if err := step(glbvariants.ConfiguratorKeyOf(modelKey, vs), "model/gltf-binary", func() ([]byte, []string, error) {
		out, err := glbvariants.Configurator(model, vs)
		return out, nil, err
	}); err != nil {
		return done, err
	}
	for _, v := range vs {
		if err := step(FilesOf(modelKey, v).AR, "model/gltf-binary", func() ([]byte, []string, error) {
			out, err := glbvariants.AR(model, v)
			return out, nil, err
		}); err != nil {
			return done, err
		}
	}
	commerce := &sharedFit{fit: func() ([]byte, []string, error) { return FitGLB(model, CommerceBudget) }}
	quickLook := &sharedFit{fit: func() ([]byte, []string, error) {
		// Start from the commerce reduction when there is one: the
		// USDZ needs at least as much.
		src, notes, err := commerce.get()
		if err != nil {
			src, notes = model, nil
		}
		_, fitted, more, err := fit.FitUSDZWithSource(src, QuickLookBudget)
		return fitted, append(append([]string{}, notes...), more...), err
	}}
	for _, v := range vs {
		f := FilesOf(modelKey, v)
		if err := step(f.Commerce, "model/gltf-binary", func() ([]byte, []string, error) {
			base, notes, err := commerce.get()
			if err != nil {
				return nil, notes, err
			}
			ar, err := glbvariants.AR(base, v)
			if err != nil {
				return nil, nil, err
			}
			out, more, err := FitGLB(ar, CommerceBudget) // the variant's materials may add a little
			return out, append(append([]string{}, notes...), more...), err
		}); err != nil {
			return done, err
		}
		if err := step(f.USDZ, usdz.ContentType, func() ([]byte, []string, error) {
			base, notes, err := quickLook.get()
			if err != nil {
				return nil, notes, err
			}
			ar, err := glbvariants.AR(base, v)
			if err != nil {
				return nil, nil, err
			}
			out, _, more, err := fit.FitUSDZWithSource(ar, QuickLookBudget)
			return out, append(append([]string{}, notes...), more...), err
		}); err != nil {
			return done, err
		}
	}
	return done, nil
}

// Refuse records reason for every file of modelKey and vs that is neither
// made nor refused yet (a build that ran out of time on its last attempt).
func (p *Packager) Refuse(ctx context.Context, modelKey string, vs []glbvariants.Variant, reason string, write Writer) (int, error) {
	keys := []string{glbvariants.ConfiguratorKeyOf(modelKey, vs)}
	for _, v := range vs {
		f := FilesOf(modelKey, v)
		keys = append(keys, f.AR, f.Commerce, f.USDZ)
	}
	n := 0
	for _, k := range keys {
		st, err := p.State(ctx, k)
		if err != nil {
			return n, err
		}
		if !st.Pending() {
			continue
		}
		if err := write(ctx, k+refusedSuffix, []byte(reason),
			&blob.WriterOptions{ContentType: "text/plain; charset=utf-8", Metadata: glbvariants.ModelMetadata(modelKey)}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// sharedFit computes one budget's reduction of the model once per build.
type sharedFit struct {
	fit   func() ([]byte, []string, error)
	done  bool
	glb   []byte
	notes []string
	err   error
}

func (s *sharedFit) get() ([]byte, []string, error) {
	if !s.done {
		s.glb, s.notes, s.err = s.fit()
		s.done = true
	}
	return s.glb, s.notes, s.err
}

// refusalReason is what the merchant reads in the Channels panel about a
// file that could not be made.
func refusalReason(key string, err error) string {
	what := "This file"
	switch {
	case strings.HasSuffix(key, ".usdz"):
		what = "The iPhone AR Quick Look file"
	case strings.Contains(key, "/commerce."):
		what = "The Google Shopping & Shopify file"
	case strings.HasSuffix(key, "/ar.glb"):
		what = "The AR file"
	case strings.HasSuffix(key, "/model.glb"):
		what = "The web viewer file"
	}
	if errors.Is(err, ErrCannotFit) {
		return what + " cannot be made within its size limit even after simplifying the mesh and shrinking the textures (" +
			strings.TrimPrefix(err.Error(), ErrCannotFit.Error()+": ") + "). Upload a lighter model (fewer triangles, smaller textures)."
	}
	return what + " could not be made from this model. Upload the model again, or a simpler one."
}
