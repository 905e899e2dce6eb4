// Package glbio writes the reconstructor's GLB files and reads other people's.
//
// Writing (write.go): EncodeGLB puts each part in its own node, mesh and PBR
// material, offers the material variants with KHR_materials_variants and adds the
// "Explode" animation. Reading (read.go, matrix.go): DocumentTriangles and
// WalkTriangles walk an uploaded model's or a GPU server's scene into world-space
// triangles with their colours, within caps on nodes, triangles and texture pixels,
// so a hostile file cannot exhaust the worker; RenderThumbnail draws them.
package glbio
