package reconstruct

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"
	"testing/fstest"

	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// A merchant's own model (issue 13, "Own model"): one .glb, or one .gltf with
// its .bin and image files. Everything in it is hostile until checked: the
// files are parsed here, every index, count and byte range is checked BEFORE any
// accessor is read (the glTF library allocates an accessor's declared size up
// front), URIs may only name files sent with the model, and the result is
// re-packed as one self-contained GLB in the product frame, like a
// reconstructed model, with a thumbnail rendered from the geometry.

// MaxModelUploadBytes caps an upload's files together.
const MaxModelUploadBytes = 50 << 20

// Structural caps of an uploaded model (far above what a product model needs,
// far below what could exhaust the worker's memory).
const (
	maxModelFiles      = 64
	maxAccessorCount   = 12_000_000
	maxModelObjects    = 20_000 // nodes, meshes, accessors, views, materials… each
	modelThumbnailSide = glbio.ThumbnailSize
	// maxModelVertexVisits bounds the vertices (and indices) processed over
	// EVERY node visit and every primitive mode: one mesh drawn by 99,990
	// nodes costs 99,990 times its vertices (issue 28 item 1).
	maxModelVertexVisits = 12_000_000
	// maxModelAccessorBytes bounds the bytes the accessors declare, those
	// without a buffer view included (the glTF library allocates and
	// zero-fills them): every distinct accessor is read at most once.
	maxModelAccessorBytes = 2 * MaxModelUploadBytes
)

// ModelFile is one uploaded file: its base name and bytes.
type ModelFile struct {
	Name string
	Data []byte
}

// ModelError is a refusal the merchant reads (Code is the API error code).
type ModelError struct {
	Code    string
	Message string
}

func (e *ModelError) Error() string { return e.Message }

func modelErr(code, format string, a ...any) error {
	return &ModelError{Code: code, Message: fmt.Sprintf(format, a...)}
}

func corrupt(format string, a ...any) error {
	return modelErr("model_corrupt", "This file is not a valid glTF model: "+format+".", a...)
}

// UploadedModel is the packed, normalised model and its thumbnail.
type UploadedModel struct {
	GLB       []byte
	Thumbnail []byte // PNG, long side ≤ ThumbnailSize, transparent background
	Filename  string // the .glb/.gltf file's name
	Triangles int
	Vertices  int
}

// PrepareUploadedModel validates files as one model and returns it packed as
// a GLB normalised to height metres (0: DefaultHeightMetres), with a thumbnail.
// Every refusal is a *ModelError.
func PrepareUploadedModel(files []ModelFile, height float64) (m *UploadedModel, err error) {
	defer func() {
		// Last line of defence: a parser panic on a crafted file is a refusal.
		if r := recover(); r != nil {
			m, err = nil, corrupt("%v", r)
		}
	}()
	if !(height > 0) {
		height = DefaultHeightMetres
	}
	main, siblings, err := sortModelFiles(files)
	if err != nil {
		return nil, err
	}
	doc, err := decodeUploadedModel(main, siblings)
	if err != nil {
		return nil, err
	}
	if err := checkModelStructure(doc); err != nil {
		return nil, err
	}
	glb, tris, verts, err := normaliseDocument(doc, height, "Photo3D upload "+Version)
	if err != nil {
		return nil, corrupt("%v", err)
	}
	tri, err := glbio.DocumentTriangles(doc)
	if err != nil {
		return nil, corrupt("%v", err)
	}
	thumb, err := encodePNG(glbio.RenderThumbnail(tri, modelThumbnailSide))
	if err != nil {
		return nil, err
	}
	return &UploadedModel{GLB: glb, Thumbnail: thumb, Filename: main.Name, Triangles: tris, Vertices: verts}, nil
}

// modelThumbnailPNG draws a GLB we built the way an uploaded model's
// thumbnail is drawn (glbio.RenderThumbnail), so the thumbnail shows the model
// rather than the photo it came from. A multi-photo build that carved a
// chair's legs away shows it on its card, before anyone publishes it
// (merchant walk 4, H1).
func modelThumbnailPNG(glb []byte) ([]byte, error) {
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(glb)).Decode(doc); err != nil {
		return nil, fmt.Errorf("decode model for its thumbnail: %w", err)
	}
	tri, err := glbio.DocumentTriangles(doc)
	if err != nil {
		return nil, fmt.Errorf("model thumbnail: %w", err)
	}
	return encodePNG(glbio.RenderThumbnail(tri, modelThumbnailSide))
}

// CheckModelFiles is the cheap part of the validation, done before anything
// is stored: the set of files is one model (names, count, total size). It
// returns the model file's name; every refusal is a *ModelError.
func CheckModelFiles(files []ModelFile) (string, error) {
	main, _, err := sortModelFiles(files)
	return main.Name, err
}

// sortModelFiles finds the one model file and indexes the others by name.
func sortModelFiles(files []ModelFile) (ModelFile, map[string][]byte, error) {
	usage := modelErr("model_files", "Upload one .glb file, or one .gltf file together with its .bin and image files.")
	if len(files) == 0 || len(files) > maxModelFiles {
		return ModelFile{}, nil, usage
	}
	var main []ModelFile
	siblings := map[string][]byte{}
	total := 0
	for _, f := range files {
		total += len(f.Data)
		if !safeFileName(f.Name) {
			return ModelFile{}, nil, modelErr("model_bad_name", "File names may not contain folders or special characters: %q.", f.Name)
		}
		switch strings.ToLower(path.Ext(f.Name)) {
		case ".glb", ".gltf":
			main = append(main, f)
		default:
			siblings[f.Name] = f.Data
		}
	}
	if total > MaxModelUploadBytes {
		return ModelFile{}, nil, modelErr("model_too_large", "Model files can be at most 50 MB in total.")
	}
	if len(main) != 1 {
		return ModelFile{}, nil, usage
	}
	if strings.EqualFold(path.Ext(main[0].Name), ".glb") && len(siblings) > 0 {
		return ModelFile{}, nil, usage
	}
	return main[0], siblings, nil
}

// safeFileName accepts a plain base name: no folders, no "..", no control or
// URI-special characters, at most 200 bytes.
func safeFileName(name string) bool {
	if name == "" || len(name) > 200 || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:?#%*"<>|`, r) {
			return false
		}
	}
	return true
}

// uriHead is the part of the JSON read before the library decodes anything,
// so every URI is judged first.
type uriHead struct {
	Buffers []struct {
		URI        string `json:"uri"`
		ByteLength int64  `json:"byteLength"`
	} `json:"buffers"`
	Images []struct {
		URI string `json:"uri"`
	} `json:"images"`
}

// decodeUploadedModel checks the URIs, decodes the document with only the
// sibling files reachable, embeds sibling images and merges all buffers into
// the GLB's one binary buffer.
func decodeUploadedModel(main ModelFile, siblings map[string][]byte) (*gltf.Document, error) {
	isGLB := strings.EqualFold(path.Ext(main.Name), ".glb")
	jsonPart := main.Data
	if isGLB {
		if err := checkGLBHeader(main.Data); err != nil {
			return nil, corrupt("bad GLB header")
		}
		n := int(binary.LittleEndian.Uint32(main.Data[12:16]))
		if binary.LittleEndian.Uint32(main.Data[16:20]) != 0x4E4F534A || n > len(main.Data)-20 || n < 2 {
			return nil, corrupt("bad GLB JSON chunk")
		}
		jsonPart = main.Data[20 : 20+n]
	}
	var head uriHead
	if err := json.Unmarshal(jsonPart, &head); err != nil {
		return nil, corrupt("unreadable JSON")
	}
	for i, b := range head.Buffers {
		if b.ByteLength <= 0 || b.ByteLength > MaxModelUploadBytes {
			return nil, corrupt("buffer %d has byteLength %d", i, b.ByteLength)
		}
		if b.URI == "" && !(isGLB && i == 0) {
			return nil, corrupt("buffer %d has no data", i)
		}
		if err := checkModelURI(b.URI, siblings, true); err != nil {
			return nil, err
		}
	}
	for _, im := range head.Images {
		if err := checkModelURI(im.URI, siblings, false); err != nil {
			return nil, err
		}
	}
	fsys := fstest.MapFS{}
	for name, data := range siblings {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	doc := new(gltf.Document)
	if err := gltf.NewDecoderFS(bytes.NewReader(main.Data), fsys).Decode(doc); err != nil {
		return nil, corrupt("%v", err)
	}
	for i, b := range doc.Buffers {
		if len(b.Data) < b.ByteLength {
			return nil, corrupt("buffer %d holds %d of its %d bytes", i, len(b.Data), b.ByteLength)
		}
	}
	for i, v := range doc.BufferViews {
		if v.Buffer < 0 || v.Buffer >= len(doc.Buffers) || v.ByteOffset < 0 || v.ByteLength <= 0 ||
			v.ByteOffset > doc.Buffers[v.Buffer].ByteLength-v.ByteLength || (v.ByteStride != 0 && (v.ByteStride < 4 || v.ByteStride > 252)) {
			return nil, corrupt("buffer view %d is out of range", i)
		}
	}
	mergeBuffers(doc)
	for i, im := range doc.Images {
		if im.BufferView != nil || im.URI == "" || im.IsEmbeddedResource() {
			continue
		}
		name, _ := url.PathUnescape(im.URI)
		mime := map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}[strings.ToLower(path.Ext(name))]
		if mime == "" {
			return nil, modelErr("model_image_type", "Textures must be PNG or JPEG images: image %d is %q.", i, name)
		}
		im.BufferView = gltf.Index(appendBufferView(doc, siblings[name]))
		im.MimeType, im.URI = mime, ""
	}
	return doc, nil
}

// checkModelURI allows an embedded data: URI, or the exact name of a file sent
// with the model; anything else (other schemes, folders, "..") is refused.
func checkModelURI(uri string, siblings map[string][]byte, buffer bool) error {
	if uri == "" {
		return nil
	}
	if strings.HasPrefix(uri, "data:") {
		ok := strings.HasPrefix(uri, "data:image/png;base64,") || strings.HasPrefix(uri, "data:image/jpeg;base64,")
		if buffer {
			ok = strings.HasPrefix(uri, "data:application/octet-stream;base64,") || strings.HasPrefix(uri, "data:application/gltf-buffer;base64,")
		}
		if !ok {
			return modelErr("model_bad_uri", "The model holds embedded data of an unsupported kind.")
		}
		return nil
	}
	name, err := url.PathUnescape(uri)
	if err != nil || strings.Contains(name, ":") || strings.HasPrefix(uri, "//") {
		return modelErr("model_external_uri", "The model refers to a file outside the upload (%.80q). Only files sent with the model can be used.", uri)
	}
	if !safeFileName(name) {
		return modelErr("model_bad_uri", "The model refers to a file in another folder (%.80q). Put all files side by side and upload them together.", uri)
	}
	if _, ok := siblings[name]; !ok {
		return modelErr("model_missing_file", "The model needs %q, which was not uploaded. Drop the .gltf together with its .bin and texture files.", name)
	}
	return nil
}

// mergeBuffers concatenates every buffer into buffer 0 (the GLB binary chunk
// holds exactly one) and re-points the views.
func mergeBuffers(doc *gltf.Document) {
	var merged []byte
	offsets := make([]int, len(doc.Buffers))
	for i, b := range doc.Buffers {
		for len(merged)%4 != 0 {
			merged = append(merged, 0)
		}
		offsets[i] = len(merged)
		merged = append(merged, b.Data[:b.ByteLength]...)
	}
	for _, v := range doc.BufferViews {
		v.ByteOffset += offsets[v.Buffer]
		v.Buffer = 0
	}
	doc.Buffers = []*gltf.Buffer{{ByteLength: len(merged), Data: merged}}
}

// appendBufferView appends data (4-byte aligned) to buffer 0 as a new view.
func appendBufferView(doc *gltf.Document, data []byte) int {
	buf := doc.Buffers[0]
	for len(buf.Data)%4 != 0 {
		buf.Data = append(buf.Data, 0)
	}
	off := len(buf.Data)
	buf.Data = append(buf.Data, data...)
	buf.ByteLength = len(buf.Data)
	doc.BufferViews = append(doc.BufferViews, &gltf.BufferView{Buffer: 0, ByteOffset: off, ByteLength: len(data)})
	return len(doc.BufferViews) - 1
}

// checkModelStructure checks every index and byte range the normaliser and
// renderer will follow, so no read can go out of range or allocate from a
// forged count.
func checkModelStructure(doc *gltf.Document) error {
	for what, n := range map[string]int{"nodes": len(doc.Nodes), "meshes": len(doc.Meshes), "accessors": len(doc.Accessors),
		"buffer views": len(doc.BufferViews), "materials": len(doc.Materials), "textures": len(doc.Textures),
		"images": len(doc.Images), "scenes": len(doc.Scenes), "animations": len(doc.Animations), "skins": len(doc.Skins)} {
		if n > maxModelObjects {
			return modelErr("model_too_complex", "The model has too many %s (%d).", what, n)
		}
	}
	in := func(i, n int) bool { return i >= 0 && i < n }
	opt := func(i *int, n int) bool { return i == nil || in(*i, n) }
	accessorBytes := 0
	for i, a := range doc.Accessors {
		size := gltf.SizeOfElement(a.ComponentType, a.Type)
		if a.Count <= 0 || a.Count > maxAccessorCount || size <= 0 || a.Sparse != nil || a.ByteOffset < 0 {
			return corrupt("accessor %d is invalid (count %d)", i, a.Count)
		}
		if accessorBytes += a.Count * size; accessorBytes > maxModelAccessorBytes {
			return modelErr("model_too_complex", "The model's data would take more than %d MB once read. Remove unused or empty (zero-filled) data.", maxModelAccessorBytes>>20)
		}
		if a.BufferView == nil {
			continue
		}
		if !in(*a.BufferView, len(doc.BufferViews)) {
			return corrupt("accessor %d points at a missing buffer view", i)
		}
		v := doc.BufferViews[*a.BufferView]
		stride := size
		if v.ByteStride != 0 {
			stride = v.ByteStride
		}
		if int64(a.ByteOffset)+int64(stride)*int64(a.Count-1)+int64(size) > int64(v.ByteLength) {
			return corrupt("accessor %d reads past its buffer view", i)
		}
	}
	primitives := 0
	maxIndex := map[int]uint32{} // indices accessor → its largest index (each read once)
	for mi, m := range doc.Meshes {
		if primitives += len(m.Primitives); primitives > maxModelObjects {
			return modelErr("model_too_complex", "The model has too many primitives (more than %d).", maxModelObjects)
		}
		for pi, p := range m.Primitives {
			for _, ai := range p.Attributes {
				if !in(ai, len(doc.Accessors)) {
					return corrupt("mesh %d primitive %d uses a missing accessor", mi, pi)
				}
			}
			pos, ok := p.Attributes[gltf.POSITION]
			if !ok || doc.Accessors[pos].Type != gltf.AccessorVec3 || doc.Accessors[pos].ComponentType != gltf.ComponentFloat {
				return corrupt("mesh %d primitive %d has no float positions", mi, pi)
			}
			if !opt(p.Material, len(doc.Materials)) || !opt(p.Indices, len(doc.Accessors)) {
				return corrupt("mesh %d primitive %d uses a missing material or accessor", mi, pi)
			}
			n := doc.Accessors[pos].Count
			if p.Indices != nil {
				ia := doc.Accessors[*p.Indices]
				if ia.Type != gltf.AccessorScalar || ia.BufferView == nil {
					return corrupt("mesh %d primitive %d has invalid indices", mi, pi)
				}
				hi, seen := maxIndex[*p.Indices]
				if !seen {
					idx, err := modeler.ReadIndices(doc, ia, nil)
					if err != nil {
						return corrupt("mesh %d primitive %d: %v", mi, pi, err)
					}
					for _, x := range idx {
						hi = max(hi, x)
					}
					maxIndex[*p.Indices] = hi
				}
				if int(hi) >= n {
					return corrupt("mesh %d primitive %d indexes vertex %d of %d", mi, pi, hi, n)
				}
			}
		}
	}
	for i, n := range doc.Nodes {
		if !opt(n.Mesh, len(doc.Meshes)) || !opt(n.Camera, len(doc.Cameras)) || !opt(n.Skin, len(doc.Skins)) {
			return corrupt("node %d points at a missing object", i)
		}
		for _, c := range n.Children {
			if !in(c, len(doc.Nodes)) {
				return corrupt("node %d has a missing child", i)
			}
		}
	}
	for i, s := range doc.Scenes {
		for _, n := range s.Nodes {
			if !in(n, len(doc.Nodes)) {
				return corrupt("scene %d has a missing node", i)
			}
		}
	}
	for i, t := range doc.Textures {
		if !opt(t.Source, len(doc.Images)) || !opt(t.Sampler, len(doc.Samplers)) {
			return corrupt("texture %d points at a missing image", i)
		}
	}
	for i, im := range doc.Images {
		if !opt(im.BufferView, len(doc.BufferViews)) {
			return corrupt("image %d points at a missing buffer view", i)
		}
	}
	if err := checkModelCost(doc); err != nil {
		return err
	}
	for i, m := range doc.Materials {
		if pbr := m.PBRMetallicRoughness; pbr != nil {
			for _, t := range []*gltf.TextureInfo{pbr.BaseColorTexture, pbr.MetallicRoughnessTexture} {
				if t != nil && !in(t.Index, len(doc.Textures)) {
					return corrupt("material %d uses a missing texture", i)
				}
			}
		}
		if (m.NormalTexture != nil && (m.NormalTexture.Index == nil || !in(*m.NormalTexture.Index, len(doc.Textures)))) ||
			(m.OcclusionTexture != nil && (m.OcclusionTexture.Index == nil || !in(*m.OcclusionTexture.Index, len(doc.Textures)))) ||
			(m.EmissiveTexture != nil && !in(m.EmissiveTexture.Index, len(doc.Textures))) {
			return corrupt("material %d uses a missing texture", i)
		}
	}
	return nil
}

// checkModelCost computes, from declared counts alone (nothing is read),
// what preparing the model will cost: the vertices and indices processed
// summed over every visit of the default scene's node graph and every
// primitive mode (points and lines are read too), and the triangles drawn
// counting every instance. A model over either cap is refused before any
// geometry is touched (issue 28 item 1: a 200 KB .gltf with one 12 M-vertex
// POINTS mesh drawn by 99,990 nodes).
func checkModelCost(doc *gltf.Document) error {
	scene := 0
	if doc.Scene != nil {
		scene = *doc.Scene
	}
	if len(doc.Scenes) == 0 {
		return nil // nothing is drawn; the normaliser refuses it as "no scene"
	}
	if scene < 0 || scene >= len(doc.Scenes) {
		return corrupt("the default scene %d does not exist", scene)
	}
	type cost struct{ verts, tris int }
	meshCost := make([]cost, len(doc.Meshes))
	for mi, m := range doc.Meshes {
		for _, p := range m.Primitives {
			n := doc.Accessors[p.Attributes[gltf.POSITION]].Count
			c := n
			if p.Indices != nil {
				n = doc.Accessors[*p.Indices].Count
				c += n
			}
			meshCost[mi].verts += c
			switch p.Mode {
			case gltf.PrimitiveTriangles:
				meshCost[mi].tris += n / 3
			case gltf.PrimitiveTriangleStrip, gltf.PrimitiveTriangleFan:
				meshCost[mi].tris += max(0, n-2)
			}
		}
	}
	visits, verts, tris := 0, 0, 0
	var walk func(ni, depth int) error
	walk = func(ni, depth int) error {
		if depth > 64 {
			return corrupt("the node hierarchy is deeper than 64 levels or has a cycle")
		}
		if visits++; visits > glbio.MaxModelNodeVisits {
			return modelErr("model_too_complex", "The model's scene reaches more than %d nodes (counting every path to a shared node).", glbio.MaxModelNodeVisits)
		}
		n := doc.Nodes[ni]
		if n.Mesh != nil {
			c := meshCost[*n.Mesh]
			verts += c.verts
			tris += c.tris
			if verts > maxModelVertexVisits {
				return modelErr("model_too_complex", "The model draws more than %d vertices once every copy (instance) of its meshes is counted; "+
					"simplify it or merge repeated parts.", maxModelVertexVisits)
			}
			if tris > glbio.MaxModelTriangles {
				return modelErr("model_too_complex", "The model has more than %d triangles (counting every copy of its meshes); "+
					"at most %d can be shown smoothly on phones.", glbio.MaxModelTriangles, glbio.MaxModelTriangles)
			}
		}
		for _, c := range n.Children {
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range doc.Scenes[scene].Nodes {
		if err := walk(n, 0); err != nil {
			return err
		}
	}
	return nil
}

// ModelTriangles returns the triangles of one of our GLBs (a stored product
// model) in its own frame, for geometric checks such as "the hotspot lies on
// the surface".
func ModelTriangles(glb []byte) ([][3][3]float64, error) {
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(glb)).Decode(doc); err != nil {
		return nil, fmt.Errorf("decode model: %w", err)
	}
	if err := checkModelStructure(doc); err != nil {
		return nil, err
	}
	tris, _, err := glbio.WalkTriangles(doc, false) // geometry only: no texture is decoded
	if err != nil {
		return nil, err
	}
	out := make([][3][3]float64, len(tris))
	for i, t := range tris {
		out[i] = t.V
	}
	return out, nil
}
