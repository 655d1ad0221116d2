//go:build tools

// Package tools pins KubeFleet's hub agent, which the local fleet runs to
// schedule ClusterResourcePlacements for real.
package tools

import (
	_ "go.goms.io/fleet/cmd/hubagent"
)
