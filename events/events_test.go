package events_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/events"
)

type sampleHappened struct {
	N int `json:"n"`
}

func (sampleHappened) EventType() string { return "sample.happened.v1" }

type sampleRenamedGoType struct {
	N int `json:"n"`
}

func (sampleRenamedGoType) EventType() string { return "sample.happened.v1" }

func TestRegistryDecodesKnownTypes(t *testing.T) {
	t.Parallel()
	r := events.NewRegistry(sampleHappened{})
	ev, err := r.Decode("sample.happened.v1", []byte(`{"n":7}`))
	require.NoError(t, err)
	require.Equal(t, sampleHappened{N: 7}, ev)
}

func TestRegistryUnknownTypeIsAnError(t *testing.T) {
	t.Parallel()
	r := events.NewRegistry(sampleHappened{})
	_, err := r.Decode("nope.v1", []byte(`{}`))
	require.True(t, errors.Is(err, events.ErrUnknownType))
}

func TestRegistryDuplicateRegistrationPanics(t *testing.T) {
	t.Parallel()
	require.Panics(t, func() { events.NewRegistry(sampleHappened{}, sampleRenamedGoType{}) })
}

func TestDomainRegistryHasNoDuplicatesAndDecodesEveryType(t *testing.T) {
	t.Parallel()
	r := events.Domain()
	require.NotEmpty(t, r.Types())
	for _, name := range r.Types() {
		_, err := r.Decode(name, []byte(`{}`))
		require.NoError(t, err, name)
	}
}
