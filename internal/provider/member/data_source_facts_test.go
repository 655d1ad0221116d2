package member

import "testing"

// override_placements names a ClusterResourcePlacement by name and a ResourcePlacement by
// namespace/name; anything else fails at validate.
func TestPlacementRefPattern(t *testing.T) {
	for ref, want := range map[string]bool{
		"web": true, "team-a/web": true, "team/web.v2": true, "a": true,
		"Web": false, "/web": false, "team/": false, "a/b/c": false, "team.x/web": false, "": false, "web-": false,
	} {
		if got := placementRefRe.MatchString(ref); got != want {
			t.Errorf("%q: matched %v, want %v", ref, got, want)
		}
	}
}
