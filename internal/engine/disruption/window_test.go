package disruption

import (
	"testing"
	"time"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestNextSpan(t *testing.T) {
	tests := []struct {
		name       string
		schedule   *string
		duration   string
		now        string
		kind       SpanKind
		opens      string
		closes     string
		open       bool
		continuous bool
		wantErr    bool
	}{
		{"weekday hours, on a Saturday", ptr("0 9 * * 1-5"), "8h", "2025-03-08T12:00:00Z", Windowed, "2025-03-10T09:00:00Z", "2025-03-10T17:00:00Z", false, false, false},
		{"weekday hours, during Tuesday's", ptr("0 9 * * 1-5"), "8h", "2025-03-11T10:00:00Z", Windowed, "2025-03-11T09:00:00Z", "2025-03-11T17:00:00Z", true, false, false},
		{"closing instant is closed: the next window", ptr("0 9 * * 1-5"), "8h", "2025-03-11T17:00:00Z", Windowed, "2025-03-12T09:00:00Z", "2025-03-12T17:00:00Z", false, false, false},
		{"opening instant is open", ptr("0 9 * * 1-5"), "8h", "2025-03-11T09:00:00Z", Windowed, "2025-03-11T09:00:00Z", "2025-03-11T17:00:00Z", true, false, false},
		{"touching windows merge: Mon+Tue 24h", ptr("0 0 * * 1,2"), "24h", "2025-03-10T05:00:00Z", Windowed, "2025-03-10T00:00:00Z", "2025-03-12T00:00:00Z", true, false, false},
		{"merged run walked back over days", ptr("0 0 * * 1-5"), "24h", "2025-03-12T10:00:00Z", Windowed, "2025-03-10T00:00:00Z", "2025-03-15T00:00:00Z", true, false, false},
		{"weekend window from Friday night", ptr("0 22 * * fri"), "60h", "2025-03-09T12:00:00Z", Windowed, "2025-03-07T22:00:00Z", "2025-03-10T10:00:00Z", true, false, false},
		{"sub-day gaps do not merge", ptr("0 1,13 * * *"), "1h", "2025-03-09T12:00:00Z", Windowed, "2025-03-09T13:00:00Z", "2025-03-09T14:00:00Z", false, false, false},
		{"reference doc: @daily + 48h is permanent", ptr("@daily"), "48h", "2024-01-07T00:00:00Z", Windowed, "", "", true, true, false},
		{"reference doc: hourly + 1h is permanent", ptr("0 * * * *"), "1h", "2024-01-07T00:30:00Z", Windowed, "", "", true, true, false},
		{"upstream fixture: every minute + 1h", ptr("* * * * *"), "1h", "2000-06-15T12:30:30Z", Windowed, "", "", true, true, false},
		{"upstream: 30 6 * * SUN + 6h, at midnight Sunday", ptr("30 6 * * SUN"), "6h", "2024-01-07T00:00:00Z", Windowed, "2024-01-07T06:30:00Z", "2024-01-07T12:30:00Z", false, false, false},
		{"yearly", ptr("@yearly"), "24h", "2025-06-01T00:00:00Z", Windowed, "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", false, false, false},
		{"no schedule: always active", nil, "", "2025-06-01T00:00:00Z", AlwaysActive, "", "", false, false, false},
		{"never fires: always active", ptr("0 0 30 2 *"), "1h", "2025-06-01T00:00:00Z", AlwaysActive, "", "", false, false, false},
		{"zero duration: never active", ptr("0 0 * * *"), "0m", "2025-06-01T00:00:00Z", NeverActive, "", "", false, false, false},
		{"never fires beats zero duration", ptr("0 0 31 4 ?"), "0m", "2025-06-01T00:00:00Z", AlwaysActive, "", "", false, false, false},
		{"unparseable", ptr("0 0 * * sat-sun"), "1h", "2025-06-01T00:00:00Z", NeverActive, "", "", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := karpv1.Budget{Nodes: "1", Schedule: tt.schedule}
			if tt.duration != "" {
				b.Duration = dur(tt.duration)
			}
			now := utc(tt.now)
			span, kind, err := NextSpan(b, now)
			if (err != nil) != tt.wantErr || kind != tt.kind {
				t.Fatalf("kind %d err %v; want kind %d error %v", kind, err, tt.kind, tt.wantErr)
			}
			if span.Open != tt.open || span.Continuous != tt.continuous {
				t.Errorf("span %+v; want open %v continuous %v", span, tt.open, tt.continuous)
			}
			if tt.opens != "" && (!span.OpensAt.Equal(utc(tt.opens)) || !span.ClosesAt.Equal(utc(tt.closes))) {
				t.Errorf("span [%s, %s); want [%s, %s)", span.OpensAt.Format(time.RFC3339), span.ClosesAt.Format(time.RFC3339), tt.opens, tt.closes)
			}
			if tt.continuous && span.ClosesAt.Before(now.Add(WindowHorizon)) {
				t.Errorf("continuous span closes at %s, before the horizon", span.ClosesAt)
			}
		})
	}
}

// The walk stays cheap on the densest schedule whose windows never break.
func BenchmarkNextSpanContinuous(b *testing.B) {
	budget := karpv1.Budget{Nodes: "1", Schedule: ptr("* * * * *"), Duration: dur("1h")}
	now := utc("2025-06-01T00:00:30Z")
	for b.Loop() {
		if _, kind, _ := NextSpan(budget, now); kind != Windowed {
			b.Fatal(kind)
		}
	}
}
