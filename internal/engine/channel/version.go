package channel

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes version. A minor version ("1.33") has Patch 0.
//
// rollout has the same parsing unexported; this one is exported so the
// provider and the emulator can read profile targets ("1.33") with it.
type Version struct{ Major, Minor, Patch int }

// ParseVersion reads "major.minor.patch" (a leading "v" is allowed).
func ParseVersion(s string) (Version, error) {
	n, err := parseParts(s, 3)
	if err != nil {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version (major.minor.patch)", s)
	}
	return Version{n[0], n[1], n[2]}, nil
}

// ParseMinor reads "major.minor", the form of a profile's
// targetKubernetesVersion ("1.30", autoupgradeprofile.tsp).
func ParseMinor(s string) (Version, error) {
	n, err := parseParts(s, 2)
	if err != nil {
		return Version{}, fmt.Errorf("%q is not a Kubernetes minor version (major.minor, e.g. \"1.33\")", s)
	}
	return Version{n[0], n[1], 0}, nil
}

func parseParts(s string, want int) ([]int, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) != want {
		return nil, fmt.Errorf("want %d parts", want)
	}
	n := make([]int, want)
	for i, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return nil, fmt.Errorf("bad part %q", p)
		}
		v, err := strconv.Atoi(p)
		if err != nil {
			return nil, err
		}
		n[i] = v
	}
	return n, nil
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// MinorString is "major.minor".
func (v Version) MinorString() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// MinorOnly drops the patch.
func (v Version) MinorOnly() Version { return Version{v.Major, v.Minor, 0} }

// Compare orders versions: -1, 0 or 1.
func (v Version) Compare(w Version) int {
	switch {
	case v.Major != w.Major:
		return cmpInt(v.Major, w.Major)
	case v.Minor != w.Minor:
		return cmpInt(v.Minor, w.Minor)
	}
	return cmpInt(v.Patch, w.Patch)
}

// minorIndex counts minors across majors (a major as 100 minors, as rollout does).
func (v Version) minorIndex() int { return v.Major*100 + v.Minor }

// minorAt is the inverse of minorIndex.
func minorAt(i int) Version { return Version{i / 100, i % 100, 0} }

// minorsBehind is how many minor versions v is behind w (negative when ahead).
func (v Version) minorsBehind(w Version) int { return w.minorIndex() - v.minorIndex() }

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
