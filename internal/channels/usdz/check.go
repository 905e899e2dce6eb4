package usdz

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Report is what Check found in a package.
type Report struct {
	Entries   []string
	Meshes    int
	Triangles int
	Materials int
	Textures  int
}

// allowed are the file types a USDZ package may hold (USDZ specification,
// "Usdz Specifics": usda/usdc/usd layers, png/jpeg images, audio).
var allowed = map[string]bool{".usda": true, ".usdc": true, ".usd": true, ".png": true, ".jpg": true, ".jpeg": true,
	".m4a": true, ".mp3": true, ".wav": true}

// Check verifies what the USDZ specification requires of the package and
// what Quick Look needs of its root layer; each failure says which rule:
//
//   - a valid zip whose every entry is stored (method 0), not encrypted,
//     without a data descriptor, with CRC and sizes that match its data;
//   - every entry's data begins at a multiple of 64 bytes;
//   - the first entry is a USD layer (the root layer); every entry is a
//     type USDZ allows;
//   - the root layer (when text) declares #usda 1.0, metersPerUnit,
//     upAxis "Y" and a defaultPrim that is defined; every Material has a
//     UsdPreviewSurface surface; every Mesh has as many face vertex indices
//     as its face counts add up to, each inside its points, and binds a
//     defined material; every asset path it names is in the package;
//     braces and brackets balance.
func Check(pkg []byte) (Report, error) {
	var rep Report
	zr, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	if err != nil {
		return rep, fmt.Errorf("not a zip archive: %w", err)
	}
	if len(zr.File) == 0 {
		return rep, fmt.Errorf("empty package")
	}
	names := map[string]bool{}
	var root []byte
	for i, f := range zr.File {
		rep.Entries = append(rep.Entries, f.Name)
		names[f.Name] = true
		if f.Method != zip.Store {
			return rep, fmt.Errorf("%s is compressed (method %d): USDZ entries must be stored", f.Name, f.Method)
		}
		if f.Flags&0x1 != 0 {
			return rep, fmt.Errorf("%s is encrypted", f.Name)
		}
		if f.Flags&0x8 != 0 {
			return rep, fmt.Errorf("%s uses a data descriptor", f.Name)
		}
		if f.CompressedSize64 != f.UncompressedSize64 {
			return rep, fmt.Errorf("%s: stored size %d differs from its size %d", f.Name, f.CompressedSize64, f.UncompressedSize64)
		}
		off, err := f.DataOffset()
		if err != nil {
			return rep, fmt.Errorf("%s: %w", f.Name, err)
		}
		if off%Alignment != 0 {
			return rep, fmt.Errorf("%s: data at byte %d, not a multiple of %d", f.Name, off, Alignment)
		}
		ext := strings.ToLower(path.Ext(f.Name))
		if !allowed[ext] {
			return rep, fmt.Errorf("%s: file type %q is not allowed in USDZ", f.Name, ext)
		}
		if i == 0 && ext != ".usda" && ext != ".usdc" && ext != ".usd" {
			return rep, fmt.Errorf("the first entry %s is not a USD layer", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			return rep, fmt.Errorf("open %s: %w", f.Name, err)
		}
		data, err := io.ReadAll(rc) // verifies the CRC at EOF
		rc.Close()
		if err != nil {
			return rep, fmt.Errorf("read %s: %w", f.Name, err)
		}
		if i == 0 {
			root = data
		}
		if ext == ".png" || ext == ".jpg" || ext == ".jpeg" {
			rep.Textures++
		}
	}
	if !bytes.HasPrefix(root, []byte("#usda 1.0")) {
		if bytes.HasPrefix(root, []byte("PXR-USDC")) {
			return rep, nil // a binary crate layer: its structure is not checked here
		}
		return rep, fmt.Errorf("root layer %s is neither USD text nor a USD crate", zr.File[0].Name)
	}
	return checkLayer(string(root), names, rep)
}

var (
	reMeters      = regexp.MustCompile(`(?m)^\s*metersPerUnit = ([0-9.eE+-]+)$`)
	reUpAxis      = regexp.MustCompile(`(?m)^\s*upAxis = "([A-Z])"$`)
	reDefaultPrim = regexp.MustCompile(`(?m)^\s*defaultPrim = "([A-Za-z_][A-Za-z0-9_]*)"$`)
	reDef         = regexp.MustCompile(`(?m)^(\s*)def (\w+) "([A-Za-z_][A-Za-z0-9_]*)"`)
	reAsset       = regexp.MustCompile(`@([^@]*)@`)
	reIntArray    = func(name string) *regexp.Regexp {
		return regexp.MustCompile(`int\[\] ` + name + ` = \[([^\]]*)\]`)
	}
	reCounts  = reIntArray("faceVertexCounts")
	reIndices = reIntArray("faceVertexIndices")
	rePoints  = regexp.MustCompile(`point3f\[\] points = \[([^\]]*)\]`)
	reBinding = regexp.MustCompile(`rel material:binding = <([^>]+)>`)
)

func checkLayer(text string, names map[string]bool, rep Report) (Report, error) {
	depth, square := 0, 0
	for _, c := range text {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case '[':
			square++
		case ']':
			square--
		}
		if depth < 0 || square < 0 {
			return rep, fmt.Errorf("unbalanced braces")
		}
	}
	if depth != 0 || square != 0 {
		return rep, fmt.Errorf("unbalanced braces")
	}
	if m := reMeters.FindStringSubmatch(text); m == nil {
		return rep, fmt.Errorf("no metersPerUnit: Quick Look would guess the scale")
	} else if f, err := strconv.ParseFloat(m[1], 64); err != nil || f <= 0 {
		return rep, fmt.Errorf("bad metersPerUnit %q", m[1])
	}
	if m := reUpAxis.FindStringSubmatch(text); m == nil || m[1] != "Y" {
		return rep, fmt.Errorf("upAxis is not \"Y\"")
	}
	dp := reDefaultPrim.FindStringSubmatch(text)
	if dp == nil {
		return rep, fmt.Errorf("no defaultPrim")
	}
	// Prim paths from the def nesting (4 spaces an indent level).
	paths := map[string]string{} // path → type
	var stack []string
	var blocks []struct{ path, typ, body string }
	defs := reDef.FindAllStringSubmatchIndex(text, -1)
	for i, d := range defs {
		level := (d[3] - d[2]) / 4
		if level > len(stack) {
			return rep, fmt.Errorf("bad nesting at %q", text[d[0]:d[1]])
		}
		stack = append(stack[:level], text[d[6]:d[7]])
		p := "/" + strings.Join(stack, "/")
		typ := text[d[4]:d[5]]
		paths[p] = typ
		end := len(text)
		if i+1 < len(defs) {
			end = defs[i+1][0]
		}
		blocks = append(blocks, struct{ path, typ, body string }{p, typ, text[d[1]:end]})
	}
	if _, ok := paths["/"+dp[1]]; !ok {
		return rep, fmt.Errorf("defaultPrim %q is not defined", dp[1])
	}
	for i, b := range blocks {
		switch b.typ {
		case "Material":
			rep.Materials++
			// The surface shader is a child block: look at the material's subtree.
			sub := ""
			for _, c := range blocks[i+1:] {
				if !strings.HasPrefix(c.path, b.path+"/") {
					break
				}
				sub += c.body
			}
			if !strings.Contains(b.body, "outputs:surface.connect = <"+b.path+"/") ||
				!strings.Contains(sub, `uniform token info:id = "UsdPreviewSurface"`) {
				return rep, fmt.Errorf("material %s has no UsdPreviewSurface surface", b.path)
			}
		case "Mesh":
			rep.Meshes++
			counts, err := ints(reCounts.FindStringSubmatch(b.body))
			if err != nil {
				return rep, fmt.Errorf("mesh %s: faceVertexCounts: %w", b.path, err)
			}
			idx, err := ints(reIndices.FindStringSubmatch(b.body))
			if err != nil {
				return rep, fmt.Errorf("mesh %s: faceVertexIndices: %w", b.path, err)
			}
			pm := rePoints.FindStringSubmatch(b.body)
			if pm == nil {
				return rep, fmt.Errorf("mesh %s has no points", b.path)
			}
			points := strings.Count(pm[1], "(")
			total := 0
			for _, c := range counts {
				if c < 3 {
					return rep, fmt.Errorf("mesh %s: a face with %d vertices", b.path, c)
				}
				total += c
				rep.Triangles += c - 2
			}
			if total != len(idx) {
				return rep, fmt.Errorf("mesh %s: face counts add up to %d, %d indices", b.path, total, len(idx))
			}
			for _, v := range idx {
				if v < 0 || v >= points {
					return rep, fmt.Errorf("mesh %s: index %d outside its %d points", b.path, v, points)
				}
			}
			bind := reBinding.FindStringSubmatch(b.body)
			if bind == nil || paths[bind[1]] != "Material" {
				return rep, fmt.Errorf("mesh %s binds no defined material", b.path)
			}
		}
	}
	if rep.Meshes == 0 {
		return rep, fmt.Errorf("no Mesh in the root layer")
	}
	for _, m := range reAsset.FindAllStringSubmatch(text, -1) {
		if !names[m[1]] {
			return rep, fmt.Errorf("asset %q is not in the package", m[1])
		}
	}
	return rep, nil
}

func ints(m []string) ([]int, error) {
	if m == nil {
		return nil, fmt.Errorf("missing")
	}
	var out []int
	for _, f := range strings.Split(m[1], ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("bad integer %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}
