//go:build tools

// Package tools pins the kube-apiserver the local fleet runs (hub and member
// clusters). It lives in a module of its own so the provider's go.mod stays lean.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
