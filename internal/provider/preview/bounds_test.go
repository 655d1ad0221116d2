package preview

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

func TestCapList(t *testing.T) {
	items := []int{1, 2, 3, 4, 5}
	if got, left := CapList(items, 3); fmt.Sprint(got) != "[1 2 3]" || left != 2 {
		t.Errorf("CapList 3: %v, %d", got, left)
	}
	if got, left := CapList(items, 0); len(got) != 5 || left != 0 {
		t.Errorf("CapList 0 (full): %v, %d", got, left)
	}
	if got, left := CapList(items, 20); len(got) != 5 || left != 0 {
		t.Errorf("CapList 20: %v, %d", got, left)
	}
}

// A warning that would repeat per member is issued once, with the count and the first names.
func TestMemberWarningsOnce(t *testing.T) {
	var w MemberWarnings
	for i := 0; i < 1000; i++ {
		w.Add("cluster unreadable", fmt.Sprintf("m-%04d", i))
	}
	w.Add("no maintenance window", "m-0007")
	msgs := w.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d warnings, want 2: %v", len(msgs), msgs)
	}
	want := "cluster unreadable: 1000 members (m-0000, m-0001, m-0002, m-0003, m-0004 and 995 more)"
	if got := msgs[0]; got != want {
		t.Errorf("warning %q, want %q", got, want)
	}
	if got := msgs[1]; got != "no maintenance window: 1 member (m-0007)" {
		t.Errorf("warning %q", got)
	}
}

// Unreadable members' clusters make one warning however many there are.
func TestUnreadableMembersOneWarning(t *testing.T) {
	var u UnreadableMembers
	var diags diag.Diagnostics
	u.Warn(&diags, "")
	if len(diags) != 0 {
		t.Fatalf("a warning without unreadable members: %v", diags)
	}
	for i := 0; i < 300; i++ {
		u.Add(fmt.Sprintf("m-%03d", i), fmt.Errorf("managed cluster m-%03d: 403", i))
	}
	u.Warn(&diags, ": their locations are not listed")
	if len(diags) != 1 {
		t.Fatalf("%d diagnostics, want 1", len(diags))
	}
	want := "The managed clusters of 300 members (m-000, m-001, m-002, m-003, m-004 and 295 more) could not be read: their locations are not listed. First error: managed cluster m-000: 403"
	if diags[0].Detail() != want {
		t.Errorf("got %q\nwant %q", diags[0].Detail(), want)
	}
}
