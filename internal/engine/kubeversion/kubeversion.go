// Package kubeversion reads and orders Kubernetes versions for the rollout and channel rules, in one
// place, on k8s.io/apimachinery/pkg/util/version (the parser Kubernetes itself uses).
package kubeversion

import (
	"fmt"
	"math"
	"slices"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// Version is a Kubernetes version. A minor version ("1.33") has Patch 0.
type Version struct{ Major, Minor, Patch int }

// Parse reads "major.minor.patch" (a leading "v" is allowed).
func Parse(s string) (Version, error) {
	v, err := parse(s, 3)
	if err != nil {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version (major.minor.patch)", s)
	}
	return v, nil
}

// ParseMinor reads "major.minor", the form of an auto-upgrade profile's targetKubernetesVersion
// ("1.30", autoupgradeprofile.tsp).
func ParseMinor(s string) (Version, error) {
	v, err := parse(s, 2)
	if err != nil {
		return Version{}, fmt.Errorf("%q is not a Kubernetes minor version (major.minor, e.g. \"1.33\")", s)
	}
	return v, nil
}

// ParseAny reads "major.minor.patch" or "major.minor" (an update run's target may be either).
func ParseAny(s string) (Version, error) {
	v, err := parse(s, 2, 3)
	if err != nil {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version (major.minor.patch)", s)
	}
	return v, nil
}

// parse reads a version of one of the given numbers of components with util/version's generic
// parser, and accepts only its canonical spelling: util/version ignores leading blanks and trailing
// text ("1.33.1-preview", "1.33.1abc") and reads leading zeros past the first component, none of
// which is a Kubernetes version the Fleet or AKS APIs name.
func parse(s string, parts ...int) (Version, error) {
	v, err := utilversion.ParseGeneric(s)
	if err != nil {
		return Version{}, err
	}
	c := v.Components()
	if !slices.Contains(parts, len(c)) {
		return Version{}, fmt.Errorf("%d components", len(c))
	}
	if v.String() != strings.TrimPrefix(s, "v") {
		return Version{}, fmt.Errorf("not in canonical form")
	}
	// util/version reads components as uint; one beyond int32 would wrap negative as int (found
	// by FuzzParse: "0.9227000000000000000.0").
	for _, x := range c {
		if x > math.MaxInt32 {
			return Version{}, fmt.Errorf("component %d out of range", x)
		}
	}
	out := Version{Major: int(c[0]), Minor: int(c[1])}
	if len(c) == 3 {
		out.Patch = int(c[2])
	}
	return out, nil
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// MinorString is "major.minor".
func (v Version) MinorString() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// MinorOnly drops the patch.
func (v Version) MinorOnly() Version { return Version{v.Major, v.Minor, 0} }

// util is v as a util/version Version.
func (v Version) util() *utilversion.Version {
	return utilversion.MajorMinor(uint(v.Major), uint(v.Minor)).WithPatch(uint(v.Patch)) //nolint:gosec // parsed from unsigned components
}

// Compare orders versions as util/version does: -1, 0 or 1.
func (v Version) Compare(w Version) int {
	a, b := v.util(), w.util()
	switch {
	case a.LessThan(b):
		return -1
	case b.LessThan(a):
		return 1
	}
	return 0
}

// MinorIndex counts minors across majors, a major as 100 minors.
func (v Version) MinorIndex() int { return v.Major*100 + v.Minor }

// MinorAt is the inverse of MinorIndex.
func MinorAt(i int) Version { return Version{i / 100, i % 100, 0} }

// MinorsBehind is how many minor versions v is behind w (negative when ahead).
func (v Version) MinorsBehind(w Version) int { return w.MinorIndex() - v.MinorIndex() }
