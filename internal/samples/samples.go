package samples

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Sample file names inside each sample folder; the demo page reads them through
// index.json, so only the generator needs to agree with itself.
const (
	MeshFile  = "model.glb"
	ImageFile = "reference.png"
	IndexFile = "index.json"
	// DefaultBaseURL is where the web app serves web/public/demo.
	DefaultBaseURL = "/demo"
)

// sample is one entry of the catalogue: its folder name, how to build it and where
// the reference camera stands.
type sample struct {
	id    string
	build func() *model
	view  view
}

// model builds the sample, standing on the origin.
func (s sample) model() *model {
	m := s.build()
	m.centreBase()
	return m
}

// catalogue lists the samples in the order the demo picker shows them; "bed" is first
// because the spec makes it the default.
func catalogue() []sample {
	return []sample{
		{"bed", func() *model { return bed(false) }, view{azimuth: 38, elevation: 26}},
		{"exploded-bed", func() *model { return bed(true) }, view{azimuth: 40, elevation: 18}},
		{"table", table, view{azimuth: 32, elevation: 24}},
		{"wallbed", wallbed, view{azimuth: 48, elevation: 36}},
		{"puffin", puffin, view{azimuth: 42, elevation: 10}},
		{"bumblee", bumblee, view{azimuth: 50, elevation: 32}},
	}
}

// IDs returns the sample ids in catalogue order.
func IDs() []string {
	var ids []string
	for _, s := range catalogue() {
		ids = append(ids, s.id)
	}
	return ids
}

// DisplayName turns a folder id into the name the picker shows: dashes and
// underscores become spaces and each word is capitalised ("exploded-bed" → "Exploded
// Bed"), the same rule as demoDisplayName in the web app.
func DisplayName(id string) string {
	words := strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// IndexEntry is one sample as listed in index.json (the web app's DemoSample).
type IndexEntry struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	MeshURL  string `json:"meshUrl"`
	ImageURL string `json:"imageUrl"`
}

// Stats describes one generated sample, for the command's report and the tests.
type Stats struct {
	ID         string
	Triangles  int
	MeshBytes  int
	ImageBytes int
}

// Files returns every generated file by slash-separated path relative to the output
// folder, plus per-sample stats. Generation is deterministic: the same code gives the
// same bytes, which lets a test hold the committed copies to the generator.
func Files(baseURL string) (map[string][]byte, []Stats, error) {
	files := map[string][]byte{}
	var index []IndexEntry
	var stats []Stats
	for _, s := range catalogue() {
		m := s.model()
		glb, err := encodeGLB(m)
		if err != nil {
			return nil, nil, fmt.Errorf("sample %s: %w", s.id, err)
		}
		img, err := renderPNG(m, s.view)
		if err != nil {
			return nil, nil, fmt.Errorf("sample %s: %w", s.id, err)
		}
		files[path.Join(s.id, MeshFile)] = glb
		files[path.Join(s.id, ImageFile)] = img
		index = append(index, IndexEntry{
			ID:       s.id,
			Name:     DisplayName(s.id),
			MeshURL:  baseURL + "/" + s.id + "/" + MeshFile,
			ImageURL: baseURL + "/" + s.id + "/" + ImageFile,
		})
		stats = append(stats, Stats{ID: s.id, Triangles: m.triangles(), MeshBytes: len(glb), ImageBytes: len(img)})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(index); err != nil {
		return nil, nil, fmt.Errorf("encode %s: %w", IndexFile, err)
	}
	files[IndexFile] = buf.Bytes()
	return files, stats, nil
}

// Write generates all samples into dir (created if needed) and returns their stats.
func Write(dir, baseURL string) ([]Stats, error) {
	files, stats, err := Files(baseURL)
	if err != nil {
		return nil, err
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("create sample folder: %w", err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, fmt.Errorf("write sample file: %w", err)
		}
	}
	return stats, nil
}
