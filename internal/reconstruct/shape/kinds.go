package shape

// Shape kinds reported in Stats.ShapeKind.
const (
	KindLathe   = "lathe"
	KindInflate = "inflate"
	KindCuboid  = "cuboid"
	KindRemote  = "remote"
)
