// Package apidoc builds Photo3D's OpenAPI 3.1 document from base.json and
// one fragment file per API area (fragments/*.json, format in FORMAT.md).
// Fragments keep each area's operations next to nothing else, so helpers
// adding routes in parallel never edit the same file; the merge refuses a
// (path, method), operationId or schema written twice, so two fragments can
// never silently disagree.
package apidoc

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"
)

//go:embed base.json fragments/*.json
var files embed.FS

// Methods are the OpenAPI path-item keys that hold operations.
var Methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Document is the merged document, built once: its JSON (keys sorted, so
// the bytes and the ETag are stable) and the ETag to serve it with.
var Document = sync.OnceValues(func() (Built, error) {
	return Build(files)
})

// Built is a merged document ready to serve.
type Built struct {
	JSON []byte
	ETag string
}

// Build merges base.json and fragments/*.json of fsys.
func Build(fsys fs.FS) (Built, error) {
	doc, err := Merge(fsys)
	if err != nil {
		return Built{}, err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return Built{}, err
	}
	sum := sha256.Sum256(b)
	return Built{JSON: b, ETag: `"` + hex.EncodeToString(sum[:12]) + `"`}, nil
}

// Merge returns the merged document as plain JSON values.
func Merge(fsys fs.FS) (map[string]any, error) {
	var doc map[string]any
	if err := readJSON(fsys, "base.json", &doc); err != nil {
		return nil, err
	}
	comps, _ := doc["components"].(map[string]any)
	if comps == nil {
		comps = map[string]any{}
		doc["components"] = comps
	}
	schemas, _ := comps["schemas"].(map[string]any)
	if schemas == nil {
		schemas = map[string]any{}
		comps["schemas"] = schemas
	}
	paths := map[string]any{}
	doc["paths"] = paths
	var tags []any
	tagFrom := map[string]string{}
	opFrom := map[string]string{} // operationId → fragment
	schemaFrom := map[string]string{}
	for name := range schemas {
		schemaFrom[name] = "base.json"
	}

	names, err := fs.Glob(fsys, "fragments/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var problems []string
	for _, name := range names {
		var frag map[string]json.RawMessage
		if err := readJSON(fsys, name, &frag); err != nil {
			return nil, err
		}
		fname := path.Base(name)
		for k := range frag {
			if k != "paths" && k != "components" && k != "tags" {
				problems = append(problems, fmt.Sprintf("%s: unknown top-level key %q (only paths, components, tags)", fname, k))
			}
		}
		var fragTags []map[string]any
		var fragPaths map[string]map[string]any
		var fragComps map[string]map[string]any
		for k, v := range map[string]any{"tags": &fragTags, "paths": &fragPaths, "components": &fragComps} {
			if raw, ok := frag[k]; ok {
				if err := json.Unmarshal(raw, v); err != nil {
					problems = append(problems, fmt.Sprintf("%s: %s: %v", fname, k, err))
				}
			}
		}
		for _, t := range fragTags {
			tn, _ := t["name"].(string)
			if prev, dup := tagFrom[tn]; dup {
				problems = append(problems, fmt.Sprintf("%s: tag %q already declared by %s", fname, tn, prev))
				continue
			}
			tagFrom[tn] = fname
			tags = append(tags, t)
		}
		for k := range fragComps {
			if k != "schemas" {
				problems = append(problems, fmt.Sprintf("%s: components.%s is not allowed (only schemas; shared parts live in base.json)", fname, k))
			}
		}
		for sn, s := range fragComps["schemas"] {
			if prev, dup := schemaFrom[sn]; dup {
				if !reflect.DeepEqual(schemas[sn], s) {
					problems = append(problems, fmt.Sprintf("%s: schema %q already defined differently by %s", fname, sn, prev))
				}
				continue
			}
			schemaFrom[sn] = fname
			schemas[sn] = s
		}
		for p, item := range fragPaths {
			have, _ := paths[p].(map[string]any)
			if have == nil {
				have = map[string]any{}
				paths[p] = have
			}
			for m, op := range item {
				if !isMethod(m) {
					problems = append(problems, fmt.Sprintf("%s: %s: key %q is not an HTTP method (declare parameters per operation)", fname, p, m))
					continue
				}
				if _, dup := have[m]; dup {
					problems = append(problems, fmt.Sprintf("%s: %s %s is already documented by another fragment", fname, strings.ToUpper(m), p))
					continue
				}
				have[m] = op
				o, _ := op.(map[string]any)
				id, _ := o["operationId"].(string)
				if id == "" {
					problems = append(problems, fmt.Sprintf("%s: %s %s has no operationId", fname, strings.ToUpper(m), p))
				} else if prev, dup := opFrom[id]; dup {
					problems = append(problems, fmt.Sprintf("%s: operationId %q already used in %s", fname, id, prev))
				} else {
					opFrom[id] = fname
				}
			}
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("apidoc: the fragments do not merge:\n  %s", strings.Join(problems, "\n  "))
	}
	doc["tags"] = tags
	return doc, nil
}

func isMethod(m string) bool {
	for _, x := range Methods {
		if m == x {
			return true
		}
	}
	return false
}

func readJSON(fsys fs.FS, name string, v any) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("apidoc: %s: %w", name, err)
	}
	if dec.More() {
		return fmt.Errorf("apidoc: %s: trailing data after the JSON object", name)
	}
	return nil
}
