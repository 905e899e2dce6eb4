package windowcount

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCounterLimitsPerWindowAndStaysBounded(t *testing.T) {
	t.Parallel()
	c := New[string](3, time.Minute, 100)
	t0 := time.Unix(1000, 0)
	require.True(t, c.Take("a", 2, t0))
	require.False(t, c.Take("a", 2, t0), "2+2 is over 3")
	require.True(t, c.Take("a", 1, t0))
	require.False(t, c.Take("a", 1, t0.Add(59*time.Second)))
	c.Give("a", 1)
	require.True(t, c.Take("a", 1, t0.Add(59*time.Second)))
	require.True(t, c.Take("a", 3, t0.Add(time.Minute)), "a new window starts from zero")
	require.Equal(t, 2, c.TakeUpTo("b", 2, t0))
	require.Equal(t, 1, c.TakeUpTo("b", 5, t0), "what the limit leaves")
	require.Equal(t, 0, c.TakeUpTo("b", 5, t0))

	for i := range 10_000 {
		c.Take(fmt.Sprint("k", i), 1, t0)
	}
	require.Equal(t, 100, c.Len(), "memory is bounded whatever keys arrive")
	// The most recently used keys are the ones kept.
	require.False(t, c.Take("k9999", 3, t0))
}
