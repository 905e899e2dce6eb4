package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Merchant text and erasure (security review 3, L7). Events carry ids, but
// some of their fields hold what a merchant typed: product and brand names,
// descriptions, tags, file names, key names, hotspot texts, purchase links,
// webhook hosts, embed sites. A sole trader's brand is their own name, a
// description can hold an address, so that text is personal data and goes
// with the account: the erasure blanks it in the account's stored events
// (and rebuilds the read models from them), keeping ids, enums, times,
// counts and hashes, so replays before and after agree.
//
// Every string in an event is classified where it is declared, with the
// struct tag `erase`, so a field added later cannot be forgotten: a test
// walks every registered type and fails for an unclassified string.
//
//	erase:"text"   typed by the merchant: blanked ("" / [] / {}) at erasure
//	erase:"keep"   chosen by the system (an enum, a generated prefix, a
//	               hash, our own message): kept
//	erase:"owner"  a free-form map whose shape another package owns (the
//	               publication snapshot): redacted with the type that
//	               package names (NewRedactor's owners)
//
// A string field whose JSON name is "id" or ends in "Id", "Ids", "Key" or
// "Keys" is an id or blob key the system chose and needs no tag; such a
// name must never hold typed text.
const (
	EraseTag   = "erase"
	EraseText  = "text"
	EraseKeep  = "keep"
	EraseOwner = "owner"
)

// isIDName reports whether a JSON field name is an id or a blob key by
// the naming convention above.
func isIDName(name string) bool {
	if name == "id" {
		return true
	}
	for _, s := range []string{"Id", "Ids", "Key", "Keys"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// field is one JSON property of a struct, embedded structs flattened as
// encoding/json flattens them.
type field struct {
	name string
	typ  reflect.Type
	tag  string
}

func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, fieldsOf(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name: name, typ: f.Type, tag: f.Tag.Get(EraseTag)})
	}
	return out
}

// holdsText reports whether values of t can contain a string (a map key
// included).
func holdsText(t reflect.Type) bool {
	if t == rawType {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsText(t.Elem())
	case reflect.Map:
		return holdsText(t.Key()) || holdsText(t.Elem())
	case reflect.Struct:
		for _, f := range fieldsOf(t) {
			if holdsText(f.typ) {
				return true
			}
		}
	}
	return false
}

// Unclassified lists, as "path (type)", every field of t that can hold a
// string and is classified neither by its erase tag nor as an id by its
// name; empty means the erasure knows every string of t. Other packages
// check the types they store in an erase:"owner" field with it.
func Unclassified(t reflect.Type) []string {
	var out []string
	unclassified(t, "", &out)
	return out
}

func unclassified(t reflect.Type, path string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		unclassified(t.Elem(), path+"[]", out)
		return
	case reflect.Map:
		if holdsText(t.Key()) {
			*out = append(*out, fmt.Sprintf("%s (keys of %s)", path, t))
			return
		}
		unclassified(t.Elem(), path+"{}", out)
		return
	case reflect.Struct:
		if t == timeType {
			return
		}
		for _, f := range fieldsOf(t) {
			p := strings.TrimPrefix(path+"."+f.name, ".")
			switch f.tag {
			case EraseText, EraseKeep, EraseOwner:
				continue
			case "":
			default:
				*out = append(*out, fmt.Sprintf("%s (unknown erase tag %q)", p, f.tag))
				continue
			}
			if !holdsText(f.typ) {
				continue
			}
			if isIDName(f.name) && isStrings(f.typ) {
				continue
			}
			unclassified(f.typ, p, out)
		}
		return
	case reflect.String, reflect.Interface:
		*out = append(*out, fmt.Sprintf("%s (%s)", path, t))
	}
}

// isStrings: a string or a list of strings (what an id field may be).
func isStrings(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t.Kind() == reflect.String
}

// ownerFields lists "type field" for every erase:"owner" field of the
// registry's events (top level only: that is where free-form maps live).
func (r *Registry) ownerFields() []string {
	var out []string
	for _, name := range r.Types() {
		for _, f := range fieldsOf(r.types[name]) {
			if f.tag == EraseOwner {
				out = append(out, name+" "+f.name)
			}
		}
	}
	return out
}

// Redactor blanks the merchant text of stored events, guided by their Go
// types. It works on the stored JSON rather than on decoded structs, so
// numbers and the fields it keeps are written back exactly as they were.
type Redactor struct {
	reg    *Registry
	owners map[string]reflect.Type
}

// NewRedactor returns a Redactor for the registry's events. owners gives,
// for every erase:"owner" field ("publication.versioned.v1 snapshot"), the
// Go type its content has; a missing or unknown one is an error, so an
// owner field added later stops the erasure instead of being skipped.
func NewRedactor(reg *Registry, owners map[string]reflect.Type) (*Redactor, error) {
	want := reg.ownerFields()
	for _, k := range want {
		if owners[k] == nil {
			return nil, fmt.Errorf("events: no type given for the free-form field %q", k)
		}
	}
	for k := range owners {
		if !slices.Contains(want, k) {
			return nil, fmt.Errorf("events: %q is not a free-form (erase:\"owner\") field", k)
		}
	}
	return &Redactor{reg: reg, owners: owners}, nil
}

// Redact returns the event's data with every merchant-text value blanked
// and every property its type does not know dropped (a field removed from
// the type, such as the addresses user events held before issue 31, is
// read by no code and may be personal). changed is false when there was
// nothing to do, so a second erasure writes nothing.
func (r *Redactor) Redact(eventType string, data []byte) (out []byte, changed bool, err error) {
	t, ok := r.reg.types[eventType]
	if !ok {
		return nil, false, fmt.Errorf("redact %q: %w", eventType, ErrUnknownType)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, fmt.Errorf("redact %q: %w", eventType, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("redact %q: data is not an object", eventType)
	}
	for _, f := range fieldsOf(t) {
		if f.tag != EraseOwner {
			continue
		}
		if sub, present := m[f.name]; present {
			nv, c := redactValue(r.owners[eventType+" "+f.name], sub)
			m[f.name] = nv
			changed = changed || c
		}
	}
	if redactStruct(t, m, true) {
		changed = true
	}
	if !changed {
		return data, false, nil
	}
	out, err = marshal(m)
	if err != nil {
		return nil, false, fmt.Errorf("redact %q: %w", eventType, err)
	}
	return out, true, nil
}

// RedactJSON blanks the merchant text of a JSON document shaped like t (a
// read model's column, a snapshot), keeping unknown properties. It is the
// walk Redact does inside an event.
func RedactJSON(t reflect.Type, doc []byte) (out []byte, changed bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, fmt.Errorf("redact %s: %w", t, err)
	}
	nv, changed := redactValue(t, v)
	if !changed {
		return doc, false, nil
	}
	out, err = marshal(nv)
	return out, true, err
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// redactValue walks v (decoded JSON) as a value of t.
func redactValue(t reflect.Type, v any) (any, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if m, ok := v.(map[string]any); ok && t != timeType {
			return m, redactStruct(t, m, false)
		}
	case reflect.Slice, reflect.Array:
		if a, ok := v.([]any); ok {
			changed := false
			for i := range a {
				var c bool
				a[i], c = redactValue(t.Elem(), a[i])
				changed = changed || c
			}
			return a, changed
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			changed := false
			for k := range m {
				var c bool
				m[k], c = redactValue(t.Elem(), m[k])
				changed = changed || c
			}
			return m, changed
		}
	}
	return v, false
}

// redactStruct blanks m's merchant text in place. dropUnknown removes the
// properties t does not declare (events only: a snapshot or a read model
// keeps what a newer version of its type may have added).
func redactStruct(t reflect.Type, m map[string]any, dropUnknown bool) bool {
	changed := false
	known := map[string]bool{}
	for _, f := range fieldsOf(t) {
		known[f.name] = true
		v, present := m[f.name]
		if !present {
			continue
		}
		switch f.tag {
		case EraseText:
			if nv, c := blank(v); c {
				m[f.name] = nv
				changed = true
			}
		case EraseKeep, EraseOwner:
		default:
			if nv, c := redactValue(f.typ, v); c {
				m[f.name] = nv
				changed = true
			}
		}
	}
	if dropUnknown {
		keys := make([]string, 0, len(m))
		for k := range m {
			if !known[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			delete(m, k)
			changed = true
		}
	}
	return changed
}

// blank is merchant text's tombstone: the empty value of its JSON kind, so
// that code folding the event sees "nothing typed" (an empty name, no tags,
// no per-part materials). null stays null.
func blank(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return "", x != ""
	case []any:
		return []any{}, len(x) > 0
	case map[string]any:
		return map[string]any{}, len(x) > 0
	case nil:
		return nil, false
	}
	// A number or a boolean in a text field is not ours to keep either.
	return nil, true
}
