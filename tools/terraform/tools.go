//go:build tools

// Package tools pins Terraform v1.16.0, which the acceptance tests run (actions,
// list resources and `terraform query` need Terraform >= 1.14). Its go.mod
// replaces the nested state-backend modules with folders a module download does
// not contain; go.mod here replaces them with the stand-ins in standin/.
package tools

import (
	_ "github.com/hashicorp/terraform"
)
