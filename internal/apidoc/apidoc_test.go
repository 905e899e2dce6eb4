package apidoc

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// TestMergeRefusesDuplicates: two fragments documenting the same operation,
// operationId or schema differently is a merge error naming both sides.
func TestMergeRefusesDuplicates(t *testing.T) {
	base := `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"components":{"schemas":{}}}`
	op := func(id string) string {
		return `{"operationId":"` + id + `","summary":"s","tags":["A"],"responses":{"200":{"description":"ok"}}}`
	}
	for name, frags := range map[string][2]string{
		"same operation":   {`{"paths":{"/api/a":{"get":` + op("a") + `}}}`, `{"paths":{"/api/a":{"get":` + op("b") + `}}}`},
		"same operationId": {`{"paths":{"/api/a":{"get":` + op("a") + `}}}`, `{"paths":{"/api/b":{"get":` + op("a") + `}}}`},
		"same schema":      {`{"components":{"schemas":{"X":{"type":"string"}}}}`, `{"components":{"schemas":{"X":{"type":"integer"}}}}`},
		"unknown key":      {`{"paths":{}}`, `{"servers":[]}`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Merge(fstest.MapFS{"base.json": {Data: []byte(base)},
				"fragments/one.json": {Data: []byte(frags[0])}, "fragments/two.json": {Data: []byte(frags[1])}})
			require.Error(t, err)
			require.Contains(t, err.Error(), "two.json")
		})
	}
	// Different methods of one path from two fragments, and one schema
	// written identically twice, merge.
	doc, err := Merge(fstest.MapFS{"base.json": {Data: []byte(base)},
		"fragments/one.json": {Data: []byte(`{"paths":{"/api/a":{"get":` + op("a") + `}},"components":{"schemas":{"X":{"type":"string"}}}}`)},
		"fragments/two.json": {Data: []byte(`{"paths":{"/api/a":{"post":` + op("b") + `}},"components":{"schemas":{"X":{"type":"string"}}}}`)}})
	require.NoError(t, err)
	require.Len(t, doc["paths"].(map[string]any)["/api/a"], 2)
}
