package facts

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// The wording of what moved, shared by every kind of data.

// pairUp pairs planned and now by name, in name order: what left or joined (what, where: "member
// cluster", "the hub"), and what changed of each pair.
func pairUp[T any](planned, now []T, name func(T) string, what, where string, changed func(name string, b, a T) []string) []string {
	before, after := map[string]T{}, map[string]T{}
	for _, x := range planned {
		before[name(x)] = x
	}
	for _, x := range now {
		after[name(x)] = x
	}
	var out []string
	for _, n := range unionKeys(before, after) {
		b, inB := before[n]
		a, inA := after[n]
		switch {
		case what == "" && (!inA || !inB): // said by another input
		case !inA:
			out = append(out, fmt.Sprintf("%s %s: left %s", what, n, where))
		case !inB:
			out = append(out, fmt.Sprintf("%s %s: joined %s", what, n, where))
		default:
			out = append(out, changed(n, b, a)...)
		}
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// mapDiff says how b differs from a ("env: prod → staging, tier: added gold"), or "" when equal.
func mapDiff(a, b map[string]string) string {
	var parts []string
	for _, k := range unionKeys(a, b) {
		av, inA := a[k]
		bv, inB := b[k]
		switch {
		case !inB:
			parts = append(parts, fmt.Sprintf("%s: %s removed", k, av))
		case !inA:
			parts = append(parts, fmt.Sprintf("%s: added %s", k, bv))
		case av != bv:
			parts = append(parts, fmt.Sprintf("%s: %s → %s", k, av, bv))
		}
	}
	return strings.Join(parts, ", ")
}

// setDiff says what a and b do not share ("added x, y; removed z"), "" when they are the same set.
func setDiff(a, b []string) string {
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range s {
			m[x] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var added, removed []string
	for x := range inb {
		if !ina[x] {
			added = append(added, x)
		}
	}
	for x := range ina {
		if !inb[x] {
			removed = append(removed, x)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+sample(added))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed "+sample(removed))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ")
}

func sample(names []string) string {
	const limit = 3
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:limit], ", "), len(names)-limit)
}
