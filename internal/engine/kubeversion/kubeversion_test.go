package kubeversion

import (
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in          string
		parse       func(string) (Version, error)
		want        Version
		wantErr     bool
		description string
	}{
		{"1.33.1", Parse, Version{1, 33, 1}, false, "major.minor.patch"},
		{"v1.33.1", Parse, Version{1, 33, 1}, false, "leading v"},
		{"1.33", Parse, Version{}, true, "minor only"},
		{"1.33.1.4", Parse, Version{}, true, "four parts"},
		{"1.33.1-preview", Parse, Version{}, true, "trailing text util/version's generic parser ignores"},
		{"1.33.1abc", Parse, Version{}, true, "trailing letters"},
		{" 1.33.1", Parse, Version{}, true, "leading blank"},
		{"1.033.1", Parse, Version{}, true, "leading zero"},
		{"01.33.1", Parse, Version{}, true, "leading zero in major"},
		{"1..1", Parse, Version{}, true, "empty part"},
		{"", Parse, Version{}, true, "empty"},
		{"1.30", ParseMinor, Version{1, 30, 0}, false, "minor"},
		{"1.30.2", ParseMinor, Version{}, true, "patch given to a minor"},
		{"1.30", ParseAny, Version{1, 30, 0}, false, "either: minor"},
		{"1.30.2", ParseAny, Version{1, 30, 2}, false, "either: patch"},
		{"1", ParseAny, Version{}, true, "major only"},
	} {
		got, err := tt.parse(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: %q → %v, %v; want %v, error %v", tt.description, tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestOrder(t *testing.T) {
	a, b := Version{1, 9, 10}, Version{1, 10, 0}
	if a.Compare(b) != -1 || b.Compare(a) != 1 || a.Compare(a) != 0 || (Version{2, 0, 0}).Compare(Version{1, 99, 99}) != 1 {
		t.Error("compare")
	}
	if a.MinorsBehind(b) != 1 || (Version{1, 99, 0}).MinorsBehind(Version{2, 0, 0}) != 1 || MinorAt(b.MinorIndex()) != b.MinorOnly() {
		t.Error("minor arithmetic")
	}
	if b.String() != "1.10.0" || b.MinorString() != "1.10" {
		t.Error("strings")
	}
}
