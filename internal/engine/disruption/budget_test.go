package disruption

import (
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

func ptr[T any](v T) *T { return &v }

func dur(s string) *metav1.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return &metav1.Duration{Duration: d}
}

// upstreamBudgets is the fixture of sigs.k8s.io/karpenter@v1.14.1 pkg/apis/v1/nodepool_budgets_test.go
// (BeforeEach of Describe("Budgets")).
func upstreamBudgets() []karpv1.Budget {
	return []karpv1.Budget{
		{Nodes: "10", Schedule: ptr("* * * * *"), Duration: dur("1h")},
		{Nodes: "100", Schedule: ptr("* * * * *"), Duration: dur("1h")},
		{Nodes: "100%", Schedule: ptr("* * * * *"), Duration: dur("1h")},
		{Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted, karpv1.DisruptionReasonUnderutilized}, Nodes: "15", Schedule: ptr("* * * * *"), Duration: dur("1h")},
		{Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted}, Nodes: "5", Schedule: ptr("* * * * *"), Duration: dur("1h")},
		{Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonUnderutilized, karpv1.DisruptionReasonDrifted, karpv1.DisruptionReasonEmpty}, Nodes: "0", Schedule: ptr("@weekly"), Duration: dur("1h")},
	}
}

// upstreamNow is the fixture's clock: "the middle of the year of 2000".
var upstreamNow = time.Date(2000, time.June, 15, 12, 30, 30, 0, time.UTC)

// Context("GetAllowedDisruptionsByReason") of pkg/apis/v1/nodepool_budgets_test.go.
func TestAllowedByReasonUpstream(t *testing.T) {
	tests := []struct {
		name   string // the upstream It()
		mutate func(b []karpv1.Budget) []karpv1.Budget
		want   map[karpv1.DisruptionReason]int
	}{
		{
			name: "should return 0 for all reasons if a budget is active for all reasons",
			mutate: func(b []karpv1.Budget) []karpv1.Budget {
				b[5].Schedule, b[5].Duration = ptr("* * * * *"), dur("1h")
				return b
			},
			want: map[karpv1.DisruptionReason]int{"Empty": 0, "Underutilized": 0, "Drifted": 0},
		},
		{
			name: "should return MaxInt32 for all reasons when there are no active budgets",
			mutate: func(b []karpv1.Budget) []karpv1.Budget {
				for i := range b {
					b[i].Schedule, b[i].Duration = ptr("@yearly"), dur("1h")
				}
				return b
			},
			want: map[karpv1.DisruptionReason]int{"Empty": math.MaxInt32, "Underutilized": math.MaxInt32, "Drifted": math.MaxInt32},
		},
		{
			name: "should ignore reason-defined budgets when inactive",
			mutate: func(b []karpv1.Budget) []karpv1.Budget {
				b[3].Schedule, b[4].Schedule = ptr("@yearly"), ptr("@yearly")
				return b
			},
			want: map[karpv1.DisruptionReason]int{"Empty": 10, "Underutilized": 10, "Drifted": 10},
		},
		{
			name:   "should return the budget for all disruption reasons when undefined",
			mutate: func(b []karpv1.Budget) []karpv1.Budget { return b[:1] },
			want:   map[karpv1.DisruptionReason]int{"Empty": 10, "Underutilized": 10, "Drifted": 10},
		},
		{
			name: "should get the minimum budget for each reason",
			mutate: func(b []karpv1.Budget) []karpv1.Budget {
				return append(b, karpv1.Budget{Schedule: ptr("* * * * *"), Nodes: "4", Duration: dur("1h"), Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty}})
			},
			want: map[karpv1.DisruptionReason]int{"Empty": 4, "Drifted": 5, "Underutilized": 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			budgets := tt.mutate(upstreamBudgets())
			for reason, want := range tt.want {
				got, err := AllowedByReason(budgets, 100, reason, upstreamNow)
				if err != nil || got != want {
					t.Errorf("%s: got %d, %v; want %d, nil", reason, got, err, want)
				}
			}
		})
	}
}

// Context("AllowedDisruptions") of pkg/apis/v1/nodepool_budgets_test.go.
func TestBudgetAllowedUpstream(t *testing.T) {
	tests := []struct {
		name    string // the upstream It()
		budget  func(b []karpv1.Budget) karpv1.Budget
		want    int
		wantErr bool
	}{
		{"should return zero values if a schedule is invalid", func(b []karpv1.Budget) karpv1.Budget { b[0].Schedule = ptr("@wrongly"); return b[0] }, 0, true},
		{"should return zero values if a nodes value is invalid", func(b []karpv1.Budget) karpv1.Budget { b[0].Nodes = "1000a%"; return b[0] }, 0, true},
		{"should return MaxInt32 when a budget is inactive", func(b []karpv1.Budget) karpv1.Budget {
			b[0].Schedule, b[0].Duration = ptr("@yearly"), dur("1h")
			return b[0]
		}, math.MaxInt32, false},
		{"should return the int value when a budget is active", func(b []karpv1.Budget) karpv1.Budget { return b[0] }, 10, false},
		{"should return the string value when a budget is active", func(b []karpv1.Budget) karpv1.Budget { return b[2] }, 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BudgetAllowed(tt.budget(upstreamBudgets()), 100, upstreamNow)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("got %d, %v; want %d, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// Context("IsActive") of pkg/apis/v1/nodepool_budgets_test.go.
func TestBudgetActiveUpstream(t *testing.T) {
	firstMonday2024 := time.Date(2024, time.January, 7, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string // the upstream It()
		now      time.Time
		schedule *string
		duration *metav1.Duration
		want     bool
		errPart  string
	}{
		// time.Date(2000, June, 0, ...) is 31 May 2000 00:00 at UTC+1, i.e. 30 May 23:00 UTC.
		{"should always consider a schedule and time in UTC", time.Date(2000, time.June, 0, 0, 0, 0, 0, time.FixedZone("fake-zone", 3600)), ptr("@daily"), dur("30m"), false, ""},
		{"should return that a schedule is active when schedule and duration are nil", upstreamNow, nil, nil, true, ""},
		{"should return that a schedule is active", upstreamNow, ptr("* * * * *"), dur("1h"), true, ""},
		{"should return that a schedule is inactive", upstreamNow, ptr("@yearly"), dur("1h"), false, ""},
		{"should return that a schedule is active when the schedule hit is in the middle of the duration", time.Date(1000, time.January, 1, 12, 0, 0, 0, time.UTC), ptr("@yearly"), dur("24h"), true, ""},
		{"should return that a schedule is active when the duration is longer than the recurrence", firstMonday2024, ptr("@daily"), dur("48h"), true, ""},
		{"should return that a schedule is inactive when the schedule hit is after the duration", firstMonday2024, ptr("30 6 * * SUN"), dur("6h"), false, ""},
		{"should return an error indicating why the cron fails to parse", firstMonday2024, ptr("0 0 * * tue-mon"), dur("6h"), false, "beginning of range (2) beyond end of range (1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BudgetActive(karpv1.Budget{Nodes: "10", Schedule: tt.schedule, Duration: tt.duration}, tt.now)
			if got != tt.want {
				t.Errorf("active = %v, want %v", got, tt.want)
			}
			if tt.errPart == "" && err != nil || tt.errPart != "" && (err == nil || !strings.Contains(err.Error(), tt.errPart)) {
				t.Errorf("err = %v, want %q", err, tt.errPart)
			}
		})
	}
}

// The quirks of shared/reference/karpenter-disruption.md §2–3, each checked by the cross-check too.
func TestBudgetQuirks(t *testing.T) {
	quietKlog(t)
	now := time.Date(2025, time.March, 5, 10, 17, 0, 0, time.UTC)
	tests := []struct {
		name    string
		budget  karpv1.Budget
		total   int
		want    int
		wantErr bool
	}{
		{"percent rounds up: 5% of 10", karpv1.Budget{Nodes: "5%"}, 10, 1, false},
		{"percent rounds up: 10% of 11", karpv1.Budget{Nodes: "10%"}, 11, 2, false},
		{"percent of zero nodes", karpv1.Budget{Nodes: "10%"}, 0, 0, false},
		{"integer not capped by the node count", karpv1.Budget{Nodes: "50"}, 3, 50, false},
		{"leading zeros", karpv1.Budget{Nodes: "007"}, 3, 7, false},
		{"int32 wrap to negative", karpv1.Budget{Nodes: "2147483648"}, 3, math.MinInt32, false},
		{"int32 wrap to 10", karpv1.Budget{Nodes: "4294967306"}, 3, 10, false},
		{"beyond int64 is an error", karpv1.Budget{Nodes: "99999999999999999999"}, 3, 0, true},
		{"never-firing schedule is always active", karpv1.Budget{Nodes: "3", Schedule: ptr("0 0 30 2 *"), Duration: dur("1h")}, 10, 3, false},
		{"zero duration is never active", karpv1.Budget{Nodes: "3", Schedule: ptr("* * * * *"), Duration: dur("0m")}, 10, Unbounded, false},
		{"schedule without duration is never active", karpv1.Budget{Nodes: "3", Schedule: ptr("* * * * *")}, 10, Unbounded, false},
		{"duration without schedule is an error", karpv1.Budget{Nodes: "3", Duration: dur("1h")}, 10, 0, true},
		{"@daily with 48h is always active", karpv1.Budget{Nodes: "3", Schedule: ptr("@daily"), Duration: dur("48h")}, 10, 3, false},
		{"CRON_TZ prefix fails", karpv1.Budget{Nodes: "3", Schedule: ptr("CRON_TZ=Europe/Paris 0 9 * * *"), Duration: dur("1h")}, 10, 0, true},
		{"day-of-week 7 fails", karpv1.Budget{Nodes: "3", Schedule: ptr("0 0 * * 7"), Duration: dur("1h")}, 10, 0, true},
		{"sat-sun fails", karpv1.Budget{Nodes: "3", Schedule: ptr("0 0 * * sat-sun"), Duration: dur("1h")}, 10, 0, true},
		{"@hourlyX fails", karpv1.Budget{Nodes: "3", Schedule: ptr("@hourlyX"), Duration: dur("1h")}, 10, 0, true},
		{"inactive budget ignores a broken nodes value", karpv1.Budget{Nodes: "abc", Schedule: ptr("@yearly"), Duration: dur("1h")}, 10, Unbounded, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BudgetAllowed(tt.budget, tt.total, now)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("got %d, %v; want %d, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// A broken budget zeroes every reason, even one it does not apply to; reasons: [] applies to none.
func TestMustAllowedByReason(t *testing.T) {
	now := time.Date(2025, time.March, 5, 10, 17, 0, 0, time.UTC)
	budgets := []karpv1.Budget{
		{Nodes: "5"},
		{Nodes: "1", Reasons: []karpv1.DisruptionReason{}},
		{Nodes: "2", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted}, Schedule: ptr("0 0 * * 7"), Duration: dur("1h")},
	}
	for _, reason := range DefaultReasons() {
		if got := MustAllowedByReason(budgets, 10, reason, now); got != 0 {
			t.Errorf("%s: got %d, want 0 (budget 2 is broken)", reason, got)
		}
	}
	budgets[2].Schedule = ptr("0 0 * * 0")
	for _, reason := range DefaultReasons() {
		if got := MustAllowedByReason(budgets, 10, reason, now); got != 5 {
			t.Errorf("%s: got %d, want 5", reason, got)
		}
	}
	if got := MustAllowedByReason(nil, 10, karpv1.DisruptionReasonEmpty, now); got != Unbounded {
		t.Errorf("no budgets: got %d, want Unbounded", got)
	}
}

func TestReasonsWith(t *testing.T) {
	got := ReasonsWith("Unhealthy", "Empty", "", "Unhealthy")
	want := []karpv1.DisruptionReason{"Empty", "Underutilized", "Drifted", "Unhealthy"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// "should default the disruption stanza when undefined" (pkg/apis/v1/nodepool_default_test.go): one 10% budget.
func TestDefaultBudgets(t *testing.T) {
	b := DefaultBudgets()
	if len(b) != 1 || b[0].Nodes != "10%" || b[0].Schedule != nil || b[0].Duration != nil || b[0].Reasons != nil {
		t.Fatalf("got %+v", b)
	}
}
