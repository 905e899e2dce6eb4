package reconstruct

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// A close-up that fills the frame (a cat's face, a cup on a patterned table) must not
// silently become the whole photo printed on a pillow: strict callers get the
// user-facing error, others a warning next to the model.
func TestSubjectNotSeparated(t *testing.T) {
	t.Parallel()
	// A blob so large it runs off three sides of the frame, on a busy backdrop.
	busy := func(x, y float64) [3]float64 {
		v := 128 + 90*math.Sin(x/7)*math.Cos(y/5)
		return [3]float64{v, 255 - v, 0.5 * v}
	}
	s := blobScene(400, 300, busy)
	s.inside = blobInside(200, 230, 260)
	data := encodePNGBytes(t, s.render())

	_, err := NewBuiltin().Reconstruct(context.Background(), data, Options{StrictSubject: true}, nil)
	require.ErrorIs(t, err, ErrSubjectNotSeparated)

	res, err := NewBuiltin().Reconstruct(context.Background(), data, Options{}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{ErrSubjectNotSeparated.Error()}, res.Warnings)

	// A product alone on a plain backdrop passes the check.
	res, err = NewBuiltin().Reconstruct(context.Background(), encodePNGBytes(t, twoToneBottle(320, 320).render()), Options{StrictSubject: true}, nil)
	require.NoError(t, err)
	require.Empty(t, res.Warnings)
}
