package glbvariants

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/memblob"

	"github.com/photo3d/photo3d/internal/glbvariants/glbtest"
	"github.com/photo3d/photo3d/internal/gltfvalidate"
	"github.com/photo3d/photo3d/internal/worklimit"
)

func testModel(t testing.TB) []byte { return glbtest.Model(t) }

func decodeDoc(t *testing.T, glb []byte) map[string]any {
	t.Helper()
	g, err := parse(glb)
	require.NoError(t, err)
	return g.doc
}

var testVariants = []Variant{
	{ID: "v1", Material: Original},
	{ID: "v2", Material: "matte-black"},
	{ID: "v3", Material: "snow-white", Parts: map[string]string{"legs": "leather-tan"}},
}

func TestConfiguratorGLBCarriesTheProductVariants(t *testing.T) {
	t.Parallel()
	out, err := Configurator(testModel(t), testVariants)
	require.NoError(t, err)
	rep := gltfvalidate.Validate(t, out)
	require.Zero(t, rep.NumErrors)

	doc := decodeDoc(t, out)
	root := obj(obj(doc["extensions"])[extVariants])
	require.Equal(t, []any{map[string]any{"name": "v1"}, map[string]any{"name": "v2"}, map[string]any{"name": "v3"}},
		root["variants"], "the model's own 'Original' variant is replaced by the product's")
	mats := list(doc, "materials")
	matName := func(i any) string { n, _ := index(i); return obj(mats[n])["name"].(string) }
	// variant index → material name, per part.
	mapped := map[string]map[int]string{}
	for _, m := range list(doc, "meshes") {
		mesh := obj(m)
		p := obj(list(mesh, "primitives")[0])
		got := map[int]string{}
		for _, mp := range list(obj(obj(p["extensions"])[extVariants]), "mappings") {
			for _, vi := range list(obj(mp), "variants") {
				i, _ := index(vi)
				got[i] = matName(obj(mp)["material"])
			}
		}
		mapped[mesh["name"].(string)] = got
	}
	require.Equal(t, map[int]string{0: "Seat", 1: "matte-black", 2: "snow-white"}, mapped["Seat"])
	require.Equal(t, map[int]string{0: "Legs", 1: "matte-black", 2: "leather-tan"}, mapped["Legs"], "per-part material wins")
	require.Equal(t, []any{extVariants}, doc["extensionsUsed"])
}

func TestARGLBHasTheVariantsMaterialsAsDefault(t *testing.T) {
	t.Parallel()
	model := testModel(t)
	defaults := func(glb []byte) []string {
		doc := decodeDoc(t, glb)
		mats := list(doc, "materials")
		var out []string
		for _, m := range list(doc, "meshes") {
			p := obj(list(obj(m), "primitives")[0])
			i, _ := index(p["material"])
			out = append(out, obj(mats[i])["name"].(string))
			require.Nil(t, obj(p["extensions"])[extVariants], "AR viewers ignore variants: none left")
		}
		require.Nil(t, doc["extensionsUsed"])
		return out
	}
	var ars [][]byte
	for _, v := range testVariants {
		ar, err := AR(model, v)
		require.NoError(t, err)
		require.Zero(t, gltfvalidate.Validate(t, ar).NumErrors)
		ars = append(ars, ar)
	}
	require.Equal(t, []string{"Seat", "Legs"}, defaults(ars[0]))
	require.Equal(t, []string{"matte-black", "matte-black"}, defaults(ars[1]))
	require.Equal(t, []string{"snow-white", "leather-tan"}, defaults(ars[2]))
	require.NotEqual(t, ars[0], ars[1])
}

func TestHostileInputIsRefused(t *testing.T) {
	t.Parallel()
	_, err := Configurator([]byte("glTF\x02\x00\x00\x00 not really"), testVariants)
	require.ErrorIs(t, err, ErrNotGLB)
	model := testModel(t)
	_, err = Configurator(model[:len(model)-4], testVariants)
	require.ErrorIs(t, err, ErrNotGLB, "a truncated file")
	_, err = Configurator(model, []Variant{{ID: "v1", Material: "gold"}})
	require.ErrorIs(t, err, ErrUnknownMaterial)
	_, err = AR(model, Variant{ID: "v1", Parts: map[string]string{"Seat": "<script>"}})
	require.ErrorIs(t, err, ErrUnknownMaterial)
	_, err = Configurator(model, []Variant{{ID: "v1"}, {ID: "v1"}})
	require.Error(t, err, "repeated ids")
}

func TestCacheKeysFollowTheConfiguration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	require.NoError(t, bucket.WriteAll(ctx, "models/m1/model.glb", testModel(t), nil))
	c := NewCache(bucket)
	k1, err := c.ConfiguratorKey(ctx, "models/m1/model.glb", testVariants)
	require.NoError(t, err)
	again, err := c.ConfiguratorKey(ctx, "models/m1/model.glb", testVariants)
	require.NoError(t, err)
	require.Equal(t, k1, again)
	changed := append([]Variant{}, testVariants...)
	changed[1].Material = "fabric-grey"
	k2, err := c.ConfiguratorKey(ctx, "models/m1/model.glb", changed)
	require.NoError(t, err)
	require.NotEqual(t, k1, k2, "a new configuration is a new URL")
	b, err := bucket.ReadAll(ctx, k2)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b[20:20+binary.LittleEndian.Uint32(b[12:])], &doc))
	_, err = c.ConfiguratorKey(ctx, "models/missing.glb", testVariants)
	require.Error(t, err)
	require.Equal(t, "variants/"+Hash("models/m1/model.glb", testVariants[:1])+"/ar.glb", ARKeyOf("models/m1/model.glb", testVariants[0]))
}

// A cache with a limit builds only in a free slot: while the process's
// slots are taken, a build is refused (worklimit.ErrBusy, 503 for the
// client) instead of adding one more model-sized build to the process.
func TestLimitedCacheRefusesWhileBusy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	require.NoError(t, bucket.WriteAll(ctx, "models/m1/model.glb", testModel(t), nil))
	l := worklimit.New(1).WithWait(10 * time.Millisecond)
	c := NewCache(bucket).WithLimit(l)
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = l.Do(ctx, func() error { close(held); <-release; return nil })
	}()
	<-held
	_, err := c.ConfiguratorKey(ctx, "models/m1/model.glb", testVariants)
	require.ErrorIs(t, err, worklimit.ErrBusy)
	ok, err := bucket.Exists(ctx, ConfiguratorKeyOf("models/m1/model.glb", testVariants))
	require.NoError(t, err)
	require.False(t, ok, "nothing built")
	close(release)
	k, err := c.ConfiguratorKey(ctx, "models/m1/model.glb", testVariants)
	require.NoError(t, err)
	require.Equal(t, ConfiguratorKeyOf("models/m1/model.glb", testVariants), k)
}
