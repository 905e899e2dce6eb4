package apidoctest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/apidoc"
	"github.com/photo3d/photo3d/internal/apidoc/apidoctest"
)

// TestOpenAPIDocumentIsValid checks the merged document against the
// OpenAPI Initiative's own 3.1 schema (testdata/oas31-schema.json, the
// 2022-10-07 schema published at spec.openapis.org), then what that schema
// cannot see: every $ref resolves, every {param} of a path is declared in
// each of its operations and nothing else is, every operation has one
// declared tag and a summary, and every schema compiles as JSON Schema
// 2020-12 (the dialect of OpenAPI 3.1).
func TestOpenAPIDocumentIsValid(t *testing.T) {
	built, err := apidoc.Document()
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(built.JSON))
	require.NoError(t, err)

	c := jsonschema.NewCompiler()
	meta, err := os.Open("testdata/oas31-schema.json")
	require.NoError(t, err)
	defer meta.Close()
	metaDoc, err := jsonschema.UnmarshalJSON(meta)
	require.NoError(t, err)
	require.NoError(t, c.AddResource("https://spec.openapis.org/oas/3.1/schema/2022-10-07", metaDoc))
	oas, err := c.Compile("https://spec.openapis.org/oas/3.1/schema/2022-10-07")
	require.NoError(t, err)
	require.NoError(t, oas.Validate(inst), "the document is not valid OpenAPI 3.1")

	var doc map[string]any
	require.NoError(t, json.Unmarshal(built.JSON, &doc))
	var problems []string
	walkRefs(doc, func(ref string) {
		if !strings.HasPrefix(ref, "#/") {
			problems = append(problems, "external $ref not allowed: "+ref)
			return
		}
		if _, ok := apidoctest.Pointer(doc, ref); !ok {
			problems = append(problems, "unresolved $ref "+ref)
		}
	})

	declared := map[string]bool{}
	for _, tg := range doc["tags"].([]any) {
		declared[tg.(map[string]any)["name"].(string)] = true
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	for p, item := range doc["paths"].(map[string]any) {
		var want []string
		for _, m := range param.FindAllStringSubmatch(p, -1) {
			want = append(want, m[1])
		}
		sort.Strings(want)
		for m, op := range item.(map[string]any) {
			o := op.(map[string]any)
			where := strings.ToUpper(m) + " " + p
			var got []string
			for _, pr := range asList(o["parameters"]) {
				pm := pr.(map[string]any)
				if ref, ok := pm["$ref"].(string); ok {
					r, _ := apidoctest.Pointer(doc, ref)
					pm, _ = r.(map[string]any)
				}
				if pm["in"] == "path" {
					got = append(got, pm["name"].(string))
					if pm["required"] != true {
						problems = append(problems, where+": path parameter "+pm["name"].(string)+" must be required")
					}
				}
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				problems = append(problems, where+": path parameters declared "+strings.Join(got, ",")+", the path has "+strings.Join(want, ","))
			}
			tags := asList(o["tags"])
			if len(tags) != 1 || !declared[tags[0].(string)] {
				problems = append(problems, where+": needs exactly one tag declared in a fragment's tags")
			}
			if s, _ := o["summary"].(string); s == "" {
				problems = append(problems, where+": no summary")
			}
			if _, ok := o["security"]; !ok {
				problems = append(problems, where+`: no security (write [] for public, [{"bearer":["read"|"write"|"publish"]}] otherwise)`)
			}
		}
	}
	require.Empty(t, problems, "OpenAPI document problems:\n%s", strings.Join(problems, "\n"))

	// Every schema compiles as 2020-12 (with formats asserted).
	sc, err := apidoctest.NewSchemaCompiler(built.JSON)
	require.NoError(t, err)
	for name := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		_, err := sc.Compile(apidoctest.DocURL + "#/components/schemas/" + name)
		require.NoError(t, err, "schema %s", name)
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func walkRefs(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" {
				f(s)
				continue
			}
			walkRefs(e, f)
		}
	case []any:
		for _, e := range x {
			walkRefs(e, f)
		}
	}
}
