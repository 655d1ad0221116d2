package preview

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Bounded preview shapes: users run thousands of clusters, so a preview lists at most
// SummaryListLimit clusters per list by default — the ones a reader needs first — and always
// carries exact counts, so the cap never loses a number. preview_detail = "full" lists every one.
// A warning that would repeat per member is issued once, with the count and the first names.

const (
	PreviewDetailSummary = "summary"
	PreviewDetailFull    = "full"
	EnvPreviewDetail     = "FLEET_PREVIEW_DETAIL"

	// SummaryListLimit is KubeFleet's own limit for listed scheduling decisions
	// (pkg/scheduler/framework/framework.go: maxUnselectedClusterDecisionCount: 20).
	SummaryListLimit = 20
	// warningNameSample is how many names a grouped warning spells out.
	warningNameSample = 5
)

// ListLimitFor is the per-list cap of a preview_detail: 0 (no cap) for full.
func ListLimitFor(detail string) int {
	if detail == PreviewDetailFull {
		return 0
	}
	return SummaryListLimit
}

// CapList returns the first limit items (all of them when limit is 0) and how many it left out.
func CapList[T any](items []T, limit int) ([]T, int64) {
	if limit <= 0 || len(items) <= limit {
		return items, 0
	}
	return items[:limit], int64(len(items) - limit)
}

// CountMap is a map value of counts by key, for attributes such as excluded_by_reason and actions.
func CountMap(counts map[string]int) types.Map {
	m := make(map[string]attr.Value, len(counts))
	for k, n := range counts {
		m[k] = types.Int64Value(int64(n))
	}
	return types.MapValueMust(types.Int64Type, m)
}

// ByCountThenKey orders the keys of counts most common first, then by name: the order in which a
// capped list takes its entries ("the most common reasons first").
func ByCountThenKey(counts map[string]int) []string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// NameSample spells out the first few names and how many more there are: "a, b, c and 17 more".
func NameSample(names []string) string {
	if len(names) <= warningNameSample {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:warningNameSample], ", "), len(names)-warningNameSample)
}

// MemberWarnings gathers warnings that would otherwise repeat per member: one per summary, with
// the number of members and the first few names, in the order the summaries were first added.
type MemberWarnings struct {
	order []string
	names map[string][]string
}

// Add records that member warrants the warning summary.
func (w *MemberWarnings) Add(summary, member string) {
	if w.names == nil {
		w.names = map[string][]string{}
	}
	if _, ok := w.names[summary]; !ok {
		w.order = append(w.order, summary)
	}
	w.names[summary] = append(w.names[summary], member)
}

// Messages are the grouped warnings' texts: "<summary>: 3 members (a, b, c)".
func (w *MemberWarnings) Messages() []string {
	out := make([]string, 0, len(w.order))
	for _, s := range w.order {
		out = append(out, fmt.Sprintf("%s: %s (%s)", s, Plural(len(w.names[s]), "member"), NameSample(w.names[s])))
	}
	return out
}

// Plural is "1 member", "3 members".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// UnreadableMembers gathers members whose managed cluster could not be read, for one warning.
type UnreadableMembers struct {
	Names []string
	first error
}

func (u *UnreadableMembers) Add(name string, err error) {
	if err == nil {
		err = errors.New("the Fleet API names no managed cluster")
	}
	if u.first == nil {
		u.first = err
	}
	u.Names = append(u.Names, name)
}

// Message is the one warning's text: how many, the first names, what follows, and the first error.
func (u *UnreadableMembers) Message(consequence string) string {
	return fmt.Sprintf("The managed clusters of %s (%s) could not be read%s. First error: %v",
		Plural(len(u.Names), "member"), NameSample(u.Names), consequence, u.first)
}

// Warn issues the one warning, if any member's cluster could not be read.
func (u *UnreadableMembers) Warn(diags *diag.Diagnostics, consequence string) {
	if len(u.Names) > 0 {
		diags.AddWarning("Member cluster unreadable", u.Message(consequence))
	}
}

// FirstToRead marks the at most limit of n entries a reader needs first (all of them when limit
// is 0): the entries are taken in the order less gives, and the marks let the caller keep the
// taken ones in their own order (a group's update order, say) rather than in the reading order.
func FirstToRead(n, limit int, less func(a, b int) bool) []bool {
	taken := make([]bool, n)
	if limit <= 0 || n <= limit {
		for i := range taken {
			taken[i] = true
		}
		return taken
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return less(idx[a], idx[b]) })
	for _, i := range idx[:limit] {
		taken[i] = true
	}
	return taken
}

// NullIfEmpty keeps an empty list null: a plan shows nothing for a null list but a line for [].
func NullIfEmpty[T any](items []T) []T {
	if len(items) == 0 {
		return nil
	}
	return items
}
