//go:build tools

// Package tools pins the documentation, lint and release tools:
// tfplugindocs (docs/ from the provider schema and templates/), golangci-lint
// and goreleaser. They live in a module of their own so that their
// dependencies stay out of the provider's module graph; `make tools`
// installs them into the git-ignored bin/ folder.
package tools

import (
	_ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
	_ "github.com/goreleaser/goreleaser/v2"
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
)
