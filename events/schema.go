package events

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// SchemaID names the document Schema returns.
const SchemaID = "https://photo3d.dev/schemas/events.json"

// Schema is a JSON Schema (2020-12) of every registered event type's data,
// one definition per type string under $defs, generated from the Go structs
// so it cannot drift from what is stored (events/schema.json is checked in
// and a test compares it with this). Analysts validate or type an export
// (`worker export`, field "data") against $defs[type].
func (r *Registry) Schema() ([]byte, error) {
	defs := map[string]any{}
	for _, name := range r.Types() {
		t := r.types[name]
		s := schemaOf(t)
		s["title"] = name
		s["description"] = "Go type events." + t.Name()
		defs[name] = s
	}
	doc := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         SchemaID,
		"title":       "Photo3D domain events",
		"description": "The data of each stored event, by its versioned type string. Unknown properties may appear in newer versions of the same type only when they are optional.",
		"$defs":       defs,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

var (
	timeType = reflect.TypeOf(time.Time{})
	rawType  = reflect.TypeOf(json.RawMessage{})
)

func schemaOf(t reflect.Type) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawType || t.Kind() == reflect.Interface:
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := schemaOf(t.Elem())
		if typ, ok := s["type"].(string); ok {
			s["type"] = []string{typ, "null"}
		}
		return s
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": []string{"array", "null"}, "items": schemaOf(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": []string{"object", "null"}, "additionalProperties": schemaOf(t.Elem())}
	case reflect.Struct:
		props := map[string]any{}
		required := []string{}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			props[name] = schemaOf(f.Type)
			if f.Tag.Get(EraseTag) == EraseText {
				// Analysts see which values an erased account's events
				// no longer hold (see erase.go).
				props[name].(map[string]any)["x-erased"] = "blanked when the merchant's account is erased"
			}
			if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
				required = append(required, name)
			}
		}
		return map[string]any{"type": "object", "properties": props, "required": required}
	}
	return map[string]any{}
}
