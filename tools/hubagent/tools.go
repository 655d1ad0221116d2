//go:build tools

// Package tools pins KubeFleet's hub agent, which the local fleet runs to
// schedule ClusterResourcePlacements for real, and its member agent, which
// applies Works on members that have their own kube-apiserver.
package tools

import (
	_ "go.goms.io/fleet/cmd/hubagent"
	_ "go.goms.io/fleet/cmd/memberagent"
)
