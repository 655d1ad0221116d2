package channel

import "github.com/fleetops/terraform-provider-fleet/internal/engine/kubeversion"

// Version is a Kubernetes version. A minor version ("1.33") has Patch 0. Parsing and ordering live
// in kubeversion, shared with the rollout rules.
type Version = kubeversion.Version

// ParseVersion reads "major.minor.patch" (a leading "v" is allowed).
func ParseVersion(s string) (Version, error) { return kubeversion.Parse(s) }

// ParseMinor reads "major.minor", the form of a profile's
// targetKubernetesVersion ("1.30", autoupgradeprofile.tsp).
func ParseMinor(s string) (Version, error) { return kubeversion.ParseMinor(s) }

// minorAt is the minor version at a minor index (kubeversion.MinorAt).
func minorAt(i int) Version { return kubeversion.MinorAt(i) }
