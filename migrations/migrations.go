// Package migrations embeds the numbered SQL files that build the Photo3D
// schema. They are applied in file-name order by internal/migrate, each exactly
// once; River's own tables are migrated separately by rivermigrate.
package migrations

import "embed"

// FS holds every NNNN_name.sql file of this directory.
//
//go:embed *.sql
var FS embed.FS
