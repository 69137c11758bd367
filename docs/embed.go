// Package docs holds cairn's user documentation and the web UI's example specs, embedded so that
// cairn serve answers them from the binary (GET /api/v1/docs/{name}, GET /api/v1/examples).
package docs

import "embed"

// FS is the documentation (*.md, openapi.yaml) and the examples (examples/*.yaml).
//
//go:embed *.md openapi.yaml examples/*.yaml
var FS embed.FS
