package rolloutacc

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

// clearFailure clears a member's planned upgrade failure through the emulator's admin endpoint.
func clearFailure(t *testing.T, member string) {
	t.Helper()
	patchMember(t, member, `{"upgrade":{"fail":false}}`)
}

// patchMember changes a member through the emulator's admin endpoint (its upgrade behaviour, or
// its cluster's version as an out-of-band upgrade would).
func patchMember(t *testing.T, member, body string) {
	t.Helper()
	base := os.Getenv("LOCALFLEET_URL")
	if base == "" {
		t.Fatal("LOCALFLEET_URL is not set")
	}
	req, err := http.NewRequest(http.MethodPatch, strings.TrimSuffix(base, "/")+"/_emulator/members/"+member, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("PATCH member %s: %s", member, resp.Status)
	}
}
