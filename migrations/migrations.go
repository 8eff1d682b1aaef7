// Package migrations holds the numbered SQL migrations of the app's own
// schema, embedded so the binary carries them. river's tables are migrated
// separately with rivermigrate.
package migrations

import "embed"

// FS holds every migration file. Files are named NNNN_what.sql and use goose's
// "-- +goose Up" / "-- +goose Down" annotations.
//
//go:embed *.sql
var FS embed.FS
