package usdz

import (
	"bytes"
	"math"
	"strconv"
)

// writeLayer writes the USD text (usda) root layer.
func writeLayer(meshes []meshOut, mats []materialOut) []byte {
	var b bytes.Buffer
	b.WriteString("#usda 1.0\n(\n    customLayerData = {\n        string creator = \"Photo3D\"\n    }\n" +
		"    defaultPrim = \"Root\"\n    metersPerUnit = 1\n    upAxis = \"Y\"\n)\n\n")
	b.WriteString("def Xform \"Root\" (\n    assetInfo = {\n        string name = \"Root\"\n    }\n    kind = \"component\"\n)\n{\n")
	b.WriteString("    def Scope \"Materials\"\n    {\n")
	used := map[int]bool{}
	for _, m := range meshes {
		used[m.material] = true
	}
	if used[-1] {
		writeMaterial(&b, materialOut{name: "Default", color: [4]float64{0.8, 0.8, 0.8, 1}, metallic: 0, roughness: 0.8})
	}
	for i, m := range mats {
		if used[i] {
			writeMaterial(&b, m)
		}
	}
	b.WriteString("    }\n")
	for _, m := range meshes {
		writeMesh(&b, m, mats)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func writeMaterial(b *bytes.Buffer, m materialOut) {
	path := "/Root/Materials/" + m.name
	b.WriteString("        def Material \"" + m.name + "\"\n        {\n")
	b.WriteString("            token outputs:surface.connect = <" + path + "/PreviewSurface.outputs:surface>\n")
	b.WriteString("            def Shader \"PreviewSurface\"\n            {\n")
	b.WriteString("                uniform token info:id = \"UsdPreviewSurface\"\n")
	if m.texture != "" {
		b.WriteString("                color3f inputs:diffuseColor.connect = <" + path + "/BaseColor.outputs:rgb>\n")
	} else {
		b.WriteString("                color3f inputs:diffuseColor = " + tuple(clamp01(m.color[0]), clamp01(m.color[1]), clamp01(m.color[2])) + "\n")
	}
	b.WriteString("                float inputs:metallic = " + num(clamp01(m.metallic)) + "\n")
	b.WriteString("                float inputs:roughness = " + num(clamp01(m.roughness)) + "\n")
	b.WriteString("                float inputs:opacity = " + num(clamp01(m.color[3])) + "\n")
	b.WriteString("                int inputs:useSpecularWorkflow = 0\n")
	b.WriteString("                token outputs:surface\n            }\n")
	if m.texture != "" {
		b.WriteString("            def Shader \"TexCoords\"\n            {\n")
		b.WriteString("                uniform token info:id = \"UsdPrimvarReader_float2\"\n")
		b.WriteString("                string inputs:varname = \"st\"\n")
		b.WriteString("                float2 outputs:result\n            }\n")
		b.WriteString("            def Shader \"BaseColor\"\n            {\n")
		b.WriteString("                uniform token info:id = \"UsdUVTexture\"\n")
		b.WriteString("                asset inputs:file = @" + m.texture + "@\n")
		b.WriteString("                float2 inputs:st.connect = <" + path + "/TexCoords.outputs:result>\n")
		b.WriteString("                token inputs:sourceColorSpace = \"sRGB\"\n")
		b.WriteString("                token inputs:wrapS = \"repeat\"\n                token inputs:wrapT = \"repeat\"\n")
		// glTF multiplies the texture by the (linear) base colour factor.
		b.WriteString("                float4 inputs:scale = " + tuple(m.color[0], m.color[1], m.color[2], m.color[3]) + "\n")
		b.WriteString("                float3 outputs:rgb\n            }\n")
	}
	b.WriteString("        }\n")
}

func writeMesh(b *bytes.Buffer, m meshOut, mats []materialOut) {
	mat := "Default"
	if m.material >= 0 {
		mat = mats[m.material].name
	}
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range m.points {
		for k := range 3 {
			lo[k], hi[k] = math.Min(lo[k], p[k]), math.Max(hi[k], p[k])
		}
	}
	b.WriteString("    def Mesh \"" + m.name + "\" (\n        prepend apiSchemas = [\"MaterialBindingAPI\"]\n    )\n    {\n")
	b.WriteString("        uniform bool doubleSided = 0\n")
	b.WriteString("        float3[] extent = [" + tuple(lo[0], lo[1], lo[2]) + ", " + tuple(hi[0], hi[1], hi[2]) + "]\n")
	b.WriteString("        int[] faceVertexCounts = [")
	for i := range len(m.indices) / 3 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('3')
	}
	b.WriteString("]\n        int[] faceVertexIndices = [")
	var scratch [32]byte
	for i, v := range m.indices {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(strconv.AppendInt(scratch[:0], int64(v), 10))
	}
	b.WriteString("]\n        rel material:binding = </Root/Materials/" + mat + ">\n")
	if len(m.normals) > 0 {
		b.WriteString("        normal3f[] normals = [")
		for i, n := range m.normals {
			if i > 0 {
				b.WriteString(", ")
			}
			writeTuple(b, n[0], n[1], n[2])
		}
		b.WriteString("] (\n            interpolation = \"vertex\"\n        )\n")
	}
	b.WriteString("        point3f[] points = [")
	for i, p := range m.points {
		if i > 0 {
			b.WriteString(", ")
		}
		writeTuple(b, p[0], p[1], p[2])
	}
	b.WriteString("]\n")
	if len(m.st) > 0 {
		b.WriteString("        texCoord2f[] primvars:st = [")
		for i, t := range m.st {
			if i > 0 {
				b.WriteString(", ")
			}
			writeTuple(b, t[0], t[1])
		}
		b.WriteString("] (\n            interpolation = \"vertex\"\n        )\n")
	}
	b.WriteString("        uniform token subdivisionScheme = \"none\"\n    }\n")
}

func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	return strconv.FormatFloat(f, 'g', 7, 32)
}

func tuple(v ...float64) string {
	s := "("
	for i, f := range v {
		if i > 0 {
			s += ", "
		}
		s += num(f)
	}
	return s + ")"
}

func clamp01(f float64) float64 { return math.Max(0, math.Min(1, f)) }

// diffuseColor takes glTF's linear base colour factor as it is:
// UsdPreviewSurface's colour inputs are linear too.

// writeTuple is tuple without the intermediate strings (the mesh arrays
// are most of the layer and of the time it takes to write).
func writeTuple(b *bytes.Buffer, v ...float64) {
	var scratch [32]byte
	b.WriteByte('(')
	for i, f := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 0
		}
		b.Write(strconv.AppendFloat(scratch[:0], f, 'g', 7, 32))
	}
	b.WriteByte(')')
}
