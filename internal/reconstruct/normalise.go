package reconstruct

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/photo3d/photo3d/internal/reconstruct/glbio"
	"github.com/qmuntal/gltf"
)

// checkGLBHeader verifies magic, version and declared length before parsing.
func checkGLBHeader(b []byte) error {
	if len(b) < 20 || string(b[:4]) != "glTF" {
		return fmt.Errorf("%w: missing glTF magic", ErrRemoteInvalidModel)
	}
	if v := binary.LittleEndian.Uint32(b[4:8]); v != 2 {
		return fmt.Errorf("%w: version %d", ErrRemoteInvalidModel, v)
	}
	if l := binary.LittleEndian.Uint32(b[8:12]); int(l) > len(b) || l < 20 {
		return fmt.Errorf("%w: declared length %d of %d bytes", ErrRemoteInvalidModel, l, len(b))
	}
	return nil
}

// normaliseGLB validates a foreign GLB and rewrites it in the product frame. It
// returns the new GLB with its triangle and vertex counts.
func normaliseGLB(raw []byte, height float64) ([]byte, int, int, error) {
	if err := checkGLBHeader(raw); err != nil {
		return nil, 0, 0, err
	}
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(raw)).Decode(doc); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %w", ErrRemoteInvalidModel, err)
	}
	if err := selfContained(doc); err != nil {
		return nil, 0, 0, err
	}
	return normaliseDocument(doc, height, "Photo3D remote "+Version)
}

// normaliseDocument rewrites a checked, self-contained document in the product
// frame (a root node scales it to height and puts the centre of its base at the
// origin), adds the variants and Explode animation, and encodes it as GLB. The
// remote reconstructor's models and merchants' own uploads both pass here.
func normaliseDocument(doc *gltf.Document, height float64, generator string) ([]byte, int, int, error) {
	scene := 0
	if doc.Scene != nil {
		scene = *doc.Scene
	}
	if scene < 0 || scene >= len(doc.Scenes) {
		return nil, 0, 0, fmt.Errorf("%w: no scene", ErrRemoteInvalidModel)
	}
	w := &boundsWalker{doc: doc, lo: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, hi: [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	for _, n := range doc.Scenes[scene].Nodes {
		if err := w.walk(n, glbio.Identity(), 0); err != nil {
			return nil, 0, 0, err
		}
	}
	if w.verts == 0 || !(w.hi[1] > w.lo[1]) {
		return nil, 0, 0, fmt.Errorf("%w: no geometry", ErrRemoteInvalidModel)
	}
	s := height / (w.hi[1] - w.lo[1])
	root := &gltf.Node{
		Name:        "Photo3D",
		Scale:       [3]float64{s, s, s},
		Translation: [3]float64{-(w.lo[0] + w.hi[0]) / 2 * s, -w.lo[1] * s, -(w.lo[2] + w.hi[2]) / 2 * s},
		Rotation:    [4]float64{0, 0, 0, 1},
	}
	body := &gltf.Node{Name: "Body", Children: doc.Scenes[scene].Nodes, Scale: [3]float64{1, 1, 1}, Rotation: [4]float64{0, 0, 0, 1}}
	doc.Nodes = append(doc.Nodes, body)
	bodyIdx := len(doc.Nodes) - 1
	root.Children = []int{bodyIdx}
	doc.Nodes = append(doc.Nodes, root)
	doc.Scenes[scene].Nodes = []int{len(doc.Nodes) - 1}
	doc.Scene = gltf.Index(scene)

	if err := addRemoteExtras(doc, bodyIdx, w.largestMesh); err != nil {
		return nil, 0, 0, err
	}
	gen := generator
	if doc.Asset.Generator != "" {
		gen += " (" + doc.Asset.Generator + ")"
	}
	doc.Asset.Generator = gen
	var out bytes.Buffer
	enc := gltf.NewEncoder(&out)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		return nil, 0, 0, fmt.Errorf("encode normalised glb: %w", err)
	}
	return out.Bytes(), w.tris, w.verts, nil
}

// selfContained rejects models that reference external files: a GLB we publish must
// carry everything it needs.
func selfContained(doc *gltf.Document) error {
	for i, b := range doc.Buffers {
		if i == 0 && b.URI == "" {
			continue
		}
		if !b.IsEmbeddedResource() {
			return fmt.Errorf("%w: buffer %d references %q", ErrRemoteInvalidModel, i, b.URI)
		}
	}
	for i, im := range doc.Images {
		if im.BufferView == nil && !im.IsEmbeddedResource() {
			return fmt.Errorf("%w: image %d references %q", ErrRemoteInvalidModel, i, im.URI)
		}
	}
	return nil
}

// boundsWalker accumulates world-space bounds and counts over a node tree.
type boundsWalker struct {
	doc         *gltf.Document
	lo, hi      [3]float64
	verts, tris int
	largestMesh int
	largestSize int
	seen        int
	acc         *glbio.AccessorCache // each mesh's positions are read once, transformed per visit
}

func (w *boundsWalker) walk(ni int, parent [16]float64, depth int) error {
	if ni < 0 || ni >= len(w.doc.Nodes) || depth > 64 {
		return fmt.Errorf("%w: bad node hierarchy", ErrRemoteInvalidModel)
	}
	w.seen++
	if w.seen > glbio.MaxModelNodeVisits {
		return fmt.Errorf("%w: node graph too large", ErrRemoteInvalidModel)
	}
	n := w.doc.Nodes[ni]
	m := glbio.Mul4(parent, glbio.LocalMatrix(n))
	if n.Mesh != nil {
		if *n.Mesh < 0 || *n.Mesh >= len(w.doc.Meshes) {
			return fmt.Errorf("%w: bad mesh index", ErrRemoteInvalidModel)
		}
		size := 0
		for _, p := range w.doc.Meshes[*n.Mesh].Primitives {
			ai, ok := p.Attributes[gltf.POSITION]
			if !ok || ai < 0 || ai >= len(w.doc.Accessors) {
				continue
			}
			if w.acc == nil {
				w.acc = glbio.NewAccessorCache(w.doc)
			}
			pos, err := w.acc.Positions(ai)
			if err != nil {
				return fmt.Errorf("%w: read positions: %w", ErrRemoteInvalidModel, err)
			}
			for _, v := range pos {
				q := glbio.Apply4(m, v)
				for c := range 3 {
					w.lo[c] = min(w.lo[c], q[c])
					w.hi[c] = max(w.hi[c], q[c])
				}
			}
			w.verts += len(pos)
			size += len(pos)
			if p.Mode == gltf.PrimitiveTriangles {
				if p.Indices != nil && *p.Indices >= 0 && *p.Indices < len(w.doc.Accessors) {
					w.tris += w.doc.Accessors[*p.Indices].Count / 3
				} else {
					w.tris += len(pos) / 3
				}
			}
		}
		if size > w.largestSize {
			w.largestSize, w.largestMesh = size, *n.Mesh
		}
	}
	for _, c := range n.Children {
		if err := w.walk(c, m, depth+1); err != nil {
			return err
		}
	}
	return nil
}
