package kubeversion

import "testing"

// FuzzParse: Kubernetes and minor versions from users and the Fleet API. No panic; an accepted
// version prints back to a string that parses to the same version.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"1.30.1", "v1.33.0", "1.33", "1.30.1-alpha.1", " 1.30.1", "01.30.1", "1..1", "", "1.99999999999999999999.0", "v"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := Parse(s); err == nil {
			if w, err := Parse(v.String()); err != nil || w != v {
				t.Fatalf("Parse(%q) = %v, which reparses as %v, %v", s, v, w, err)
			}
		} else if err.Error() == "" {
			t.Fatalf("Parse(%q): empty error", s)
		}
		if v, err := ParseMinor(s); err == nil && (v.Patch != 0) {
			t.Fatalf("ParseMinor(%q) = %v with a patch", s, v)
		}
		_, _ = ParseAny(s)
	})
}
