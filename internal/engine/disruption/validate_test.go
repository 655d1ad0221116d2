package disruption

import (
	"strings"
	"testing"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

type verdict int

const (
	ok   verdict = iota // neither errors nor warnings
	warn                // accepted, with a warning
	fail                // rejected
)

func (v verdict) String() string { return [...]string{"ok", "warn", "fail"}[v] }

func verdictOf(d Diagnostics) verdict {
	switch {
	case d.HasErrors():
		return fail
	case len(d.Warnings) > 0:
		return warn
	}
	return ok
}

type validationCase struct {
	name  string // the upstream It()/Entry() when ported, else what it shows
	value string
	want  verdict
	hint  string // a substring the first message must contain
}

func runValidation(t *testing.T, f func(string) Diagnostics, tests []validationCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := f(tt.value)
			if got := verdictOf(d); got != tt.want {
				t.Fatalf("%q: %v %+v, want %v", tt.value, got, d, tt.want)
			}
			if tt.hint != "" && !strings.Contains(strings.Join(append(d.Errors, d.Warnings...), "\n"), tt.hint) {
				t.Errorf("%q: %+v lacks %q", tt.value, d, tt.hint)
			}
		})
	}
}

// pkg/apis/v1/nodepool_validation_cel_test.go (sigs.k8s.io/karpenter@v1.14.1) for budgets[].nodes,
// plus what the CRD accepts and Karpenter cannot hold.
func TestValidateNodes(t *testing.T) {
	runValidation(t, ValidateNodes, []validationCase{
		{"should fail when creating a budget with a negative value int", "-10", fail, ""},
		{"should fail when creating a budget with a negative value percent", "-10%", fail, ""},
		{"should fail when creating a budget with a value percent with more than 3 digits", "1000%", fail, ""},
		{"should succeed when creating a budget with neither duration nor cron", "10", ok, ""},
		{"default 10%", "10%", ok, ""},
		{"100%", "100%", ok, ""},
		{"101%", "101%", fail, ""},
		{"leading zeros percent", "05%", ok, ""},
		{"leading zeros", "007", ok, ""},
		{"large but in int32", "2147483647", ok, ""},
		{"int32 wrap", "2147483648", warn, "-2147483648"},
		{"int32 wrap to 10", "4294967306", warn, "allows 10"},
		{"beyond int64", "99999999999999999999", warn, "too large"},
		{"empty", "", fail, ""},
		{"fraction", "5.5%", fail, ""},
		{"plus sign", "+3", fail, ""},
	})
}

// pkg/apis/v1/nodepool_validation_cel_test.go for budgets[].schedule, plus the runtime failures of
// shared/reference/karpenter-disruption.md §2.4 checked against robfig/cron's ParseStandard.
func TestValidateSchedule(t *testing.T) {
	runValidation(t, ValidateSchedule, []validationCase{
		{"should fail when creating a budget with an invalid cron", "*", fail, ""},
		{"should fail when creating a schedule with less than 5 entries", "* * * * ", fail, ""},
		{"should succeed when creating a budget with both duration and cron", "* * * * *", ok, ""},
		{"should succeed when creating a budget with special cased crons", "@annually", ok, ""},
		{"@yearly", "@yearly", ok, ""},
		{"@monthly", "@monthly", ok, ""},
		{"@weekly", "@weekly", ok, ""},
		{"@daily", "@daily", ok, ""},
		{"@midnight", "@midnight", ok, ""},
		{"@hourly", "@hourly", ok, ""},
		{"weekday names and ranges", "0 9 * * mon-fri", ok, ""},
		{"question mark", "0 0 ? * 0", ok, ""},
		{"steps and lists", "*/15 1,13 1-15 jan-jun *", ok, ""},
		{"@every is not in the CRD", "@every 1h", fail, ""},
		{"unknown descriptor passes the half-anchored pattern", "@hourlyX", warn, "descriptors are"},
		{"six fields", "0 0 9 * * *", warn, "exactly five fields"},
		{"CRON_TZ prefix", "CRON_TZ=Europe/Paris 0 9 * * *", warn, "time zones are not supported"},
		{"TZ prefix, even UTC", "TZ=UTC 0 9 * * *", warn, "time zones are not supported"},
		{"day-of-week 7", "0 0 * * 7", warn, "0 for Sunday"},
		{"wrap-around weekday names", "0 0 * * sat-sun", warn, "cannot wrap around"},
		{"wrap-around numbers", "0 0 * * 5-1", warn, "beginning of range (5) beyond end of range (1)"},
		{"upstream IsActive error case", "0 0 * * tue-mon", warn, "beginning of range (2) beyond end of range (1)"},
		{"wrap-around hours", "0 22-2 * * *", warn, "cannot wrap around"},
		{"L is not supported", "0 0 L * *", warn, "no L, W or #"},
		{"hour 24", "0 24 * * *", warn, "above maximum (23)"},
		{"30 February never fires", "0 0 30 2 *", warn, "never fires"},
		{"31 April never fires", "0 0 31 4 ?", warn, "never fires"},
		{"29 February fires", "0 0 29 2 *", ok, ""},
		{"30 February or any Monday fires (day fields are OR'd)", "0 0 30 2 1", ok, ""},
	})
}

// pkg/apis/v1/nodepool_validation_cel_test.go for budgets[].duration. Durations there are
// metav1.Durations, which serialize as "20m0s".
func TestValidateBudgetDuration(t *testing.T) {
	runValidation(t, ValidateBudgetDuration, []validationCase{
		{"should fail when creating a budget with a negative duration", "-20m0s", fail, ""},
		{"should fail when creating a budget with a seconds duration", "30s", fail, ""},
		{"should succeed when creating a budget with both duration and cron", "20m0s", ok, ""},
		{"should succeed when creating a budget with hours and minutes in duration", "2h20m0s", ok, ""},
		{"hours", "10h", ok, ""},
		{"hours and 0s", "10h0s", ok, ""},
		{"Go's rendering of an hour", "1h0m0s", ok, ""},
		{"1.5h", "1.5h", fail, ""},
		{"days", "1d", fail, ""},
		{"seconds after minutes", "2h30m15s", fail, ""},
		{"90s", "90s", fail, ""},
		{"zero minutes", "0m", warn, "never active"},
		{"zero hours and minutes", "0h0m", warn, "never active"},
		{"overflow", "9999999999h", fail, "out of range"},
	})
}

// pkg/apis/v1/nodepool_validation_cel_test.go: "should succeed/fail on a valid/invalid expireAfter"
// and consolidateAfter (same pattern), and terminationGracePeriod.
func TestValidateNillableDurations(t *testing.T) {
	nillable := []validationCase{
		{"single unit", "30s", ok, ""},
		{"multiple units", "1h30m5s", ok, ""},
		{"never", "Never", ok, ""},
		{"negative", "-1s", fail, ""},
		{"invalid unit", "1hr", fail, ""},
		{"partial match", "FooNever", fail, ""},
		{"milliseconds", "500ms", fail, ""},
		{"default", "720h", ok, ""},
		{"zero", "0s", ok, ""},
		{"overflow", "99999999999h", fail, "out of range"},
	}
	t.Run("expireAfter", func(t *testing.T) { runValidation(t, ValidateExpireAfter, nillable) })
	t.Run("consolidateAfter", func(t *testing.T) { runValidation(t, ValidateConsolidateAfter, nillable) })
	t.Run("terminationGracePeriod", func(t *testing.T) {
		runValidation(t, ValidateTerminationGracePeriod, []validationCase{
			{"single unit", "30s", ok, ""},
			{"multiple units", "1h30m5s", ok, ""},
			{"negative", "-1s", fail, ""},
			{"invalid unit", "1hr", fail, ""},
			{"never", "Never", fail, ""},
			{"partial match", "FooNever", fail, ""},
		})
	})
}

// pkg/apis/v1/nodepool_validation_cel_test.go: "should succeed/fail on a valid/invalid consolidationPolicy".
func TestValidateConsolidationPolicy(t *testing.T) {
	runValidation(t, ValidateConsolidationPolicy, []validationCase{
		{"WhenEmpty", "WhenEmpty", ok, ""},
		{"WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilized", ok, ""},
		{"Balanced", "Balanced", ok, ""},
		{"quoted 1", "1", fail, ""},
		{"level 0", "0", fail, ""},
		{"lowercase balanced", "balanced", fail, ""},
		{"lowercase whenempty", "whenempty", fail, ""},
		{"empty string", "", fail, ""},
		{"WhenUnderutilized", "WhenUnderutilized", fail, `"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"`},
		{"arbitrary string", "foo", fail, ""},
	})
}

// pkg/apis/v1/nodepool_validation_cel_test.go: budgets with valid and invalid reasons.
func TestValidateReasons(t *testing.T) {
	tests := []struct {
		name    string
		reasons []string
		extra   []karpv1.DisruptionReason
		want    verdict
	}{
		{"should allow disruption reason Drifted", []string{"Drifted"}, nil, ok},
		{"should allow disruption reason Underutilized", []string{"Underutilized"}, nil, ok},
		{"should allow disruption reason Empty", []string{"Empty"}, nil, ok},
		{"should not allow invalid reason", []string{"invalid"}, nil, fail},
		{"should not allow expired disruption reason", []string{"expired"}, nil, fail},
		{"should not allow empty reason", []string{""}, nil, fail},
		{"should allow setting multiple reasons", []string{"Drifted", "Empty"}, nil, ok},
		{"Unhealthy needs a v1.15 CRD", []string{"Unhealthy"}, nil, fail},
		{"Unhealthy from the cluster's CRD", []string{"Unhealthy"}, []karpv1.DisruptionReason{"Unhealthy"}, ok},
		{"duplicates (listType=set)", []string{"Empty", "Empty"}, nil, fail},
		{"empty list applies to nothing", []string{}, nil, warn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ValidateReasons(tt.reasons, tt.extra...)
			if got := verdictOf(d); got != tt.want {
				t.Fatalf("%v: %+v, want %v", got, d, tt.want)
			}
		})
	}
}

// pkg/apis/v1/nodepool_validation_cel_test.go: schedule and duration together, in every budget.
func TestValidateSchedulePair(t *testing.T) {
	tests := []struct {
		name               string // the upstream It()
		schedule, duration bool
		want               verdict
	}{
		{"should fail when creating a budget with a cron but no duration", true, false, fail},
		{"should fail when creating a budget with a duration but no cron", false, true, fail},
		{"should succeed when creating a budget with both duration and cron", true, true, ok},
		{"should succeed when creating a budget with neither duration nor cron", false, false, ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ValidateSchedulePair(tt.schedule, tt.duration)
			if got := verdictOf(d); got != tt.want || tt.want == fail && d.Errors[0] != "'schedule' must be set with 'duration'" {
				t.Fatalf("%v %+v, want %v", got, d, tt.want)
			}
		})
	}
}

func TestValidateBudgetCount(t *testing.T) {
	for n, want := range map[int]verdict{0: warn, 1: ok, 50: ok, 51: fail} {
		if got := verdictOf(ValidateBudgetCount(n)); got != want {
			t.Errorf("%d budgets: %v, want %v", n, got, want)
		}
	}
}

// Every schedule the CRD accepts and ValidateSchedule does not flag must be one Karpenter parses; every
// one it flags as unparseable must fail Karpenter's IsActive. Runs the seed corpus under go test.
func FuzzValidateSchedule(f *testing.F) {
	for _, s := range []string{"* * * * *", "0 0 * * 7", "@daily", "@dailyX", "CRON_TZ=UTC 0 9 * * *", "0 0 30 2 *", "*/5 1-3 ? jan,feb sun", "a b c d e", "0 0 * * sat-sun"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := ValidateSchedule(s)
		if d.HasErrors() {
			return
		}
		_, err := BudgetActive(karpv1.Budget{Schedule: &s, Duration: dur("1h")}, upstreamNow)
		unparseable := len(d.Warnings) > 0 && strings.Contains(d.Warnings[0], "cannot parse")
		if (err != nil) != unparseable {
			t.Fatalf("%q: IsActive error %v, warnings %v", s, err, d.Warnings)
		}
	})
}

// BudgetNodes must equal Karpenter's always-active budget for any string and node count.
func FuzzBudgetNodes(f *testing.F) {
	for _, s := range []string{"10%", "5", "2147483648", "1000a%", "%", "-5%", "99999999999999999999%"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, nodes string, total int) {
		if len(nodes) > 25 && !strings.HasSuffix(nodes, "%") {
			return // keep intstr.FromInt's overflow stack traces out of the log
		}
		quietKlog(t)
		want, wantErr := (&karpv1.Budget{Nodes: nodes}).GetAllowedDisruptions(nil, total)
		got, gotErr := BudgetNodes(nodes, total)
		if got != want || (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%q of %d: got %d, %v; Karpenter %d, %v", nodes, total, got, gotErr, want, wantErr)
		}
	})
}
