package channels_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/photo3d/photo3d/internal/channels"
	"github.com/photo3d/photo3d/internal/channels/usdz"
	"github.com/photo3d/photo3d/internal/glbvariants"
	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
)

func bucketWrite(b *blob.Bucket) channels.Writer {
	return func(ctx context.Context, key string, data []byte, opts *blob.WriterOptions) error {
		return b.WriteAll(ctx, key, data, opts)
	}
}

// Build makes every file of every variant once, each carrying the model it
// was made from (the erasure finds them by it); Report and State only read.
func TestBuildMakesEachFileOnceAndReportOnlyReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	const modelKey = "models/u1/model.glb"
	require.NoError(t, bucket.WriteAll(ctx, modelKey, glbtest.Model(t), nil))
	vs := []glbvariants.Variant{{ID: "v1", Material: glbvariants.Original}, {ID: "v2", Material: "matte-black"}}
	p := channels.NewPackager(bucket)

	assets, pending, err := p.Report(ctx, modelKey, vs, map[string]string{"v1": "Default", "v2": "Black"})
	require.NoError(t, err)
	require.True(t, pending)
	require.Len(t, assets, 5)
	for _, a := range assets {
		require.Equal(t, channels.StatePending, a.State, a.Label)
	}
	st, err := p.State(ctx, channels.FilesOf(modelKey, vs[1]).USDZ)
	require.NoError(t, err)
	require.True(t, st.Pending())
	n := 0
	for it := bucket.List(nil); ; n++ {
		if _, err := it.Next(ctx); err != nil {
			break
		}
	}
	require.Equal(t, 1, n, "reading built nothing")

	built, err := p.Build(ctx, modelKey, vs, bucketWrite(bucket))
	require.NoError(t, err)
	require.Equal(t, channels.Built{Written: 7}, built, "configurator, then AR, commerce and USDZ per variant")
	for _, v := range vs {
		f := channels.FilesOf(modelKey, v)
		for _, k := range []string{f.AR, f.Commerce, f.USDZ} {
			attrs, err := bucket.Attributes(ctx, k)
			require.NoError(t, err, k)
			require.Equal(t, modelKey, attrs.Metadata["model"], k)
		}
		pkg, err := bucket.ReadAll(ctx, f.USDZ)
		require.NoError(t, err)
		_, err = usdz.Check(pkg)
		require.NoError(t, err)
	}
	again, err := p.Build(ctx, modelKey, vs, bucketWrite(bucket))
	require.NoError(t, err)
	require.Equal(t, channels.Built{}, again, "nothing twice")
	assets, pending, err = p.Report(ctx, modelKey, vs, map[string]string{"v1": "Default", "v2": "Black"})
	require.NoError(t, err)
	require.False(t, pending)
	for _, a := range assets {
		require.Equal(t, channels.StateReady, a.State, a.Label)
		require.Equal(t, "green", a.Status, a.Label)
	}
}

// A file that cannot be made is refused, with a reason the merchant reads,
// instead of staying pending or being published broken; Refuse marks what
// a build that ran out of time left missing.
func TestBuildRefusesWhatItCannotMake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	const modelKey = "models/u1/broken.glb"
	require.NoError(t, bucket.WriteAll(ctx, modelKey, []byte("glTF not really"), nil))
	vs := []glbvariants.Variant{{ID: "v1", Material: glbvariants.Original}}
	p := channels.NewPackager(bucket)
	built, err := p.Build(ctx, modelKey, vs, bucketWrite(bucket))
	require.NoError(t, err)
	require.Equal(t, channels.Built{Refused: 4}, built)
	st, err := p.State(ctx, channels.FilesOf(modelKey, vs[0]).USDZ)
	require.NoError(t, err)
	require.Equal(t, "The iPhone AR Quick Look file could not be made from this model. Upload the model again, or a simpler one.", st.Refused)
	assets, pending, err := p.Report(ctx, modelKey, vs, map[string]string{"v1": "Default"})
	require.NoError(t, err)
	require.False(t, pending, "refused is final")
	require.Equal(t, channels.StateRefused, assets[2].State)
	require.Equal(t, st.Refused, assets[2].Reason)

	const other = "models/u1/other.glb"
	require.NoError(t, bucket.WriteAll(ctx, other, glbtest.Model(t), nil))
	n, err := p.Refuse(ctx, other, vs, "took too long", bucketWrite(bucket))
	require.NoError(t, err)
	require.Equal(t, 4, n)
	st, err = p.State(ctx, channels.FilesOf(other, vs[0]).Commerce)
	require.NoError(t, err)
	require.Equal(t, "took too long", st.Refused)
}

// Security review 3, item H1: the USDZ of a large own model is held to the
// Quick Look budget (the old converter turned a 36 MB GLB into a 91 MB
// USDZ). Grid(500) is a 9 MB GLB of 498,002 triangles whose USDZ as it is
// would be about 23 MB.
func TestFitUSDZHoldsALargeModelToTheQuickLookBudget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("reduces half a million triangles")
	}
	glb := glbtest.Grid(500)
	start := time.Now()
	pkg, notes, err := channels.FitUSDZ(glb, channels.QuickLookBudget)
	require.NoError(t, err)
	t.Logf("%d-byte GLB → %d-byte USDZ in %s: %v", len(glb), len(pkg), time.Since(start), notes)
	require.LessOrEqual(t, int64(len(pkg)), channels.QuickLookBudget.MaxBytes)
	require.NotEmpty(t, notes)
	require.True(t, strings.HasSuffix(notes[0], "to fit 15 MB as a USDZ"), notes[0])
	_, err = usdz.Check(pkg)
	require.NoError(t, err)
}
