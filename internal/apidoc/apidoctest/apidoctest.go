// Package apidoctest holds what the tests of the OpenAPI document share:
// a JSON Schema 2020-12 compiler that knows the merged document, and JSON
// pointer resolution. Kept out of package apidoc so the api binary does not
// link the schema validator.
package apidoctest

import (
	"bytes"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DocURL is the name the merged document is known by to the JSON Schema
// compiler, so the fragments' "#/components/schemas/X" references resolve.
const DocURL = "https://photo3d.invalid/openapi.json"

// NewSchemaCompiler returns a JSON Schema 2020-12 compiler that knows the
// merged document as DocURL and asserts formats (date-time, uri…).
func NewSchemaCompiler(docJSON []byte) (*jsonschema.Compiler, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(docJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(DocURL, inst); err != nil {
		return nil, err
	}
	return c, nil
}

// Pointer resolves a local JSON pointer ("#/a/b~1c") in doc.
func Pointer(doc any, ref string) (any, bool) {
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}
