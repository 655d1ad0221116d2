//go:build tools

// Package tools pins the hashicorp/kubernetes provider the quickstart configures from
// fleet_hub_credentials (make kubernetes-provider builds it into the local filesystem mirror).
// v1.13.4 is the only release the Go module proxy serves: later releases are not valid
// versions of the module path. Its own replace directives are copied here; vbom.ml/util (a
// vanished host) is only needed for its go.mod, so a local stub stands in.
package tools

import (
	_ "github.com/hashicorp/terraform-provider-kubernetes"
)
