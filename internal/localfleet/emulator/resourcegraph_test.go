package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

type graphPage struct {
	TotalRecords int              `json:"totalRecords"`
	Count        int              `json:"count"`
	SkipToken    string           `json:"$skipToken"`
	Data         []map[string]any `json:"data"`
}

// graphQuery posts one Resource Graph query with no retry policy.
func (fx *fixture) graphQuery(t *testing.T, body map[string]any) (*http.Response, []byte) {
	t.Helper()
	tok, err := fx.cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{fx.srv.URL() + "/.default"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, fx.srv.URL()+"/providers/Microsoft.ResourceGraph/resources?api-version=2024-04-01", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := fx.httpClient(t, false).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, out
}

// TestResourceGraphPagesManagedClusters: Resource Graph answers the
// subscription's managed clusters (the rows ARM's list holds, by name), paged
// by $skipToken; its queries are not ARM reads; the 16th query of a user in a
// 5-second window is answered 429 with x-ms-user-quota-remaining 0 and
// x-ms-user-quota-resets-after, and the window then resets
// (guidance-for-throttled-requests).
func TestResourceGraphPagesManagedClusters(t *testing.T) {
	clk := &meterClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	fx := newFixture(t, func(c *emulator.Config) {
		c.File.FleetAPI.ReadLimits = &fleetfile.ReadLimits{}
		c.MeterNow = clk.now
	})
	query := "resources | where type =~ 'microsoft.containerservice/managedclusters'"
	var names []string
	token, queries := "", 0
	for {
		opts := map[string]any{"$top": 2}
		if token != "" {
			opts["$skipToken"] = token
		}
		resp, b := fx.graphQuery(t, map[string]any{"subscriptions": []string{fx.sub}, "query": query, "options": opts})
		queries++
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("query %d: %d %s", queries, resp.StatusCode, b)
		}
		if got := resp.Header.Get(emulator.GraphQuotaRemaining); got != strconv.Itoa(emulator.GraphQuotaQueries-queries) {
			t.Errorf("query %d: %s = %q, want %d", queries, emulator.GraphQuotaRemaining, got, emulator.GraphQuotaQueries-queries)
		}
		var page graphPage
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatal(err)
		}
		if page.Count != len(page.Data) || page.Count > 2 {
			t.Fatalf("page of count %d with %d rows for $top 2", page.Count, len(page.Data))
		}
		for _, row := range page.Data {
			if row["type"] != "microsoft.containerservice/managedclusters" || row["subscriptionId"] != fx.sub {
				t.Errorf("row %v: not a managed cluster of %s", row["id"], fx.sub)
			}
			name, _ := row["name"].(string)
			names = append(names, name)
		}
		if token = page.SkipToken; token == "" {
			break
		}
	}
	resp, b := fx.raw(t, http.MethodGet, "/subscriptions/"+fx.sub+"/resourceGroups/"+fx.rg+"/providers/Microsoft.ContainerService/managedClusters?api-version=2025-10-01")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ARM list: %d %s", resp.StatusCode, b)
	}
	var list struct {
		Value []struct{ Name string } `json:"value"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, v := range list.Value {
		want = append(want, v.Name)
	}
	sort.Strings(names)
	sort.Strings(want)
	if len(want) < 3 || !equalStrings(names, want) {
		t.Fatalf("Resource Graph's clusters %v, ARM's list %v", names, want)
	}
	st, _ := fx.srv.Metering()
	if st.Graph.Queries != queries || st.Graph.Rows != len(want) {
		t.Errorf("graph stats %+v, want %d queries and %d rows", st.Graph, queries, len(want))
	}
	if n := len(st.Reads); n != 1 {
		t.Errorf("ARM reads %v: the queries should not be metered as ARM reads", st.Reads)
	}

	for queries < emulator.GraphQuotaQueries {
		if resp, b := fx.graphQuery(t, map[string]any{"subscriptions": []string{fx.sub}, "query": query}); resp.StatusCode != http.StatusOK {
			t.Fatalf("query %d: %d %s", queries+1, resp.StatusCode, b)
		}
		queries++
	}
	clk.add(2 * time.Second)
	resp, b = fx.graphQuery(t, map[string]any{"subscriptions": []string{fx.sub}, "query": query})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get(emulator.GraphQuotaRemaining) != "0" || resp.Header.Get(emulator.GraphQuotaResetsAfter) != "00:00:03" {
		t.Fatalf("query 16 in 5 s: %d, remaining %q, resets after %q (%s); want 429, 0, 00:00:03", resp.StatusCode,
			resp.Header.Get(emulator.GraphQuotaRemaining), resp.Header.Get(emulator.GraphQuotaResetsAfter), b)
	}
	clk.add(3 * time.Second)
	if resp, b := fx.graphQuery(t, map[string]any{"subscriptions": []string{fx.sub}, "query": query}); resp.StatusCode != http.StatusOK || resp.Header.Get(emulator.GraphQuotaRemaining) != "14" {
		t.Fatalf("first query of the next window: %d %s, remaining %q", resp.StatusCode, b, resp.Header.Get(emulator.GraphQuotaRemaining))
	}
	if resp, _ := fx.graphQuery(t, map[string]any{"subscriptions": []string{fx.sub}, "query": "resources | where type =~ 'microsoft.compute/virtualmachines'"}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a query of another type: %d, want 400", resp.StatusCode)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
