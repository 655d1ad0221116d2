package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

// Managed clusters in bulk (issue 24 item 2): one ARM list per resource group, which the provider
// reads, against one Azure Resource Graph query, which only this bench reads (the emulator serves
// it under ARG's quota of 15 queries per 5 s per user, guidance-for-throttled-requests). Both are
// measured here with the same principal against the same 1,000 clusters, alone and as 10 aliases
// reading at once; the plan's figures then say what the plan would read with either.

// armReader sends the bench's own ARM requests as the fleet's principal.
type armReader struct {
	base string
	hc   *http.Client
	cred azcore.TokenCredential
	sub  string
	rg   string
}

func newARMReader(b *testing.B, f *acctest.Fleet) *armReader {
	base := strings.TrimSuffix(f.Env["LOCALFLEET_URL"], "/")
	hc := f.HTTPClient(b)
	cred, err := azidentity.NewClientSecretCredential(f.Env["ARM_TENANT_ID"], f.Env["ARM_CLIENT_ID"], f.Env["ARM_CLIENT_SECRET"], &azidentity.ClientSecretCredentialOptions{
		ClientOptions:            azcore.ClientOptions{Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: base + "/"}, Transport: hc},
		DisableInstanceDiscovery: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	return &armReader{base: base, hc: hc, cred: cred, sub: f.Env["ARM_SUBSCRIPTION_ID"], rg: f.Env["FLEET_RESOURCE_GROUP_NAME"]}
}

func (a *armReader) send(method, path string, body any) (*http.Response, []byte, error) {
	tok, err := a.cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{a.base + "/.default"}})
	if err != nil {
		return nil, nil, err
	}
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp, out, err
}

// listClusters is the provider's read: Managed Clusters - List By Resource Group.
func (a *armReader) listClusters() (int, error) {
	resp, b, err := a.send(http.MethodGet, "/subscriptions/"+a.sub+"/resourceGroups/"+a.rg+"/providers/Microsoft.ContainerService/managedClusters?api-version=2025-10-01", nil)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("list: %d %s", resp.StatusCode, b)
	}
	var l struct {
		Value []json.RawMessage `json:"value"`
	}
	err = json.Unmarshal(b, &l)
	return len(l.Value), err
}

// graphClusters reads the subscription's managed clusters through Resource Graph, top rows a
// page, waiting out the quota's window (x-ms-user-quota-resets-after) when it answers 429.
func (a *armReader) graphClusters(top int) (rows, queries, throttled int, err error) {
	token := ""
	for {
		opts := map[string]any{"$top": top}
		if token != "" {
			opts["$skipToken"] = token
		}
		resp, b, err := a.send(http.MethodPost, "/providers/Microsoft.ResourceGraph/resources?api-version=2024-04-01", map[string]any{
			"subscriptions": []string{a.sub},
			"query":         "resources | where type =~ 'microsoft.containerservice/managedclusters' and resourceGroup =~ '" + strings.ToLower(a.rg) + "'",
			"options":       opts,
		})
		if err != nil {
			return rows, queries, throttled, err
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			throttled++
			time.Sleep(resetsAfter(resp.Header.Get(emulator.GraphQuotaResetsAfter)))
			continue
		}
		queries++
		if resp.StatusCode != http.StatusOK {
			return rows, queries, throttled, fmt.Errorf("query: %d %s", resp.StatusCode, b)
		}
		var page struct {
			Count     int    `json:"count"`
			SkipToken string `json:"$skipToken"`
		}
		if err := json.Unmarshal(b, &page); err != nil {
			return rows, queries, throttled, err
		}
		rows += page.Count
		if token = page.SkipToken; token == "" {
			return rows, queries, throttled, nil
		}
	}
}

// resetsAfter parses hh:mm:ss; a missing or odd value waits a second.
func resetsAfter(v string) time.Duration {
	var h, m, s int
	if _, err := fmt.Sscanf(v, "%d:%d:%d", &h, &m, &s); err != nil {
		return time.Second
	}
	return time.Duration(h*3600+m*60+s)*time.Second + 10*time.Millisecond
}

type bulkRead struct {
	wall                      time.Duration
	rows, armReads            int
	queries, graphThrottled   int
	armThrottled, graphErrors int
}

// clientsAtOnce runs n readers at once, as n provider aliases would, and sums what the emulator counted.
func clientsAtOnce(b *testing.B, f *acctest.Fleet, n int, read func() (rows int, err error)) bulkRead {
	resetMeter(b, f)
	var wg sync.WaitGroup
	var mu sync.Mutex
	out := bulkRead{}
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows, err := read()
			mu.Lock()
			defer mu.Unlock()
			out.rows += rows
			if err != nil {
				out.graphErrors++
				b.Logf("bulk read: %v", err)
			}
		}()
	}
	wg.Wait()
	out.wall = time.Since(start)
	st := meterStats(b, f)
	out.armReads, out.armThrottled = total(st.Reads), total(st.Throttled)
	out.queries, out.graphThrottled = st.Graph.Queries, st.Graph.Throttled
	return out
}

// graphVersusList measures both bulk reads and writes the rows with the decision.
func graphVersusList(b *testing.B, f *acctest.Fleet, rep *report, plan planResult) {
	a := newARMReader(b, f)
	list := func() (int, error) { return a.listClusters() }
	graph := func(top int) func() (int, error) {
		return func() (int, error) { r, _, _, err := a.graphClusters(top); return r, err }
	}
	l1 := clientsAtOnce(b, f, 1, list)
	g1 := clientsAtOnce(b, f, 1, graph(emulator.GraphMaxPage))
	l10 := clientsAtOnce(b, f, aliases, list)
	g10 := clientsAtOnce(b, f, aliases, graph(emulator.GraphMaxPage))
	// A query over the whole subscription of 10 fleets returns 10,000 rows, 10 pages of 1,000; the
	// emulator holds 1,000 clusters, so pages of 100 stand in for them (the same queries per alias).
	gs := clientsAtOnce(b, f, aliases, graph(emulator.GraphMaxPage/aliases))
	fail := func(r bulkRead) string {
		if r.graphErrors > 0 {
			return fmt.Sprintf("; **%d failed**", r.graphErrors)
		}
		return ""
	}
	rep.row("Managed clusters in bulk, 1,000 members in one resource group: ARM's managedClusters list of the resource group (what the provider reads) vs Azure Resource Graph's query of the same rows (1,000 a page; under ARG's quota of 15 queries per 5 s per user, as Azure's guidance for throttled requests describes it): requests, wall time",
		fmt.Sprintf("list: %d ARM read, %d rows, %s%s vs ARG: %d query, %d rows, 0 ARM reads, %s%s", l1.armReads, l1.rows, l1.wall.Round(time.Millisecond), fail(l1), g1.queries, g1.rows, g1.wall.Round(time.Millisecond), fail(g1)),
		"the same rows; floor 0 s for both (1 read is within the bucket of 250, 1 query within 15 per 5 s)")
	rep.row(fmt.Sprintf("… %d aliases at once (10 fleets in one subscription, one principal), each its fleet's resource group", aliases),
		fmt.Sprintf("list: %d ARM reads, %d 429s, %s vs ARG: %d queries, %d 429s, %s", l10.armReads, l10.armThrottled, l10.wall.Round(time.Millisecond), g10.queries, g10.graphThrottled, g10.wall.Round(time.Millisecond)),
		"floor 0 s for both (10 reads of a bucket of 250; 10 queries of 15 per 5 s)")
	rep.row(fmt.Sprintf("… %d aliases at once, each querying ARG over the whole subscription (10,000 clusters: 10 pages each, modelled as pages of 100 over the local fleet's 1,000)", aliases),
		fmt.Sprintf("ARG: %d queries, %d 429s answered (waited out by x-ms-user-quota-resets-after), %s%s", gs.queries, gs.graphThrottled, gs.wall.Round(100*time.Millisecond), fail(gs)),
		fmt.Sprintf("floor %s: (%d − 15) queries / 3 a second", time.Duration(float64(gs.queries-emulator.GraphQuotaQueries)/3*float64(time.Second)).Round(100*time.Millisecond), gs.queries))
	if plan.arm.Reads != nil {
		reads := total(plan.arm.Reads)
		lists := plan.arm.Reads["GET Microsoft.ContainerService/managedClusters"]
		fl := floor(reads, plan.arm.Limits)
		flGraph := floor(reads-lists, plan.arm.Limits)
		rep.row("… the 1,000-member plan's ARM reads with its clusters from ARG instead of the list (the measured plan less its cluster lists; maintenance configurations are in no ARG table, so they stay ARM reads), and the floor",
			fmt.Sprintf("%s ARM reads + %d ARG query, floor %s, against the list's %s reads, floor %s: **ARG saves %d read**",
				thousands(reads-lists), max(lists, 1), flGraph.Round(100*time.Millisecond), thousands(reads), fl.Round(100*time.Millisecond), lists),
			"decision: the ARM list. ARG would save one read per resource group (0.04 s of refill) and reads ARG's separate quota, but it is eventually consistent: a cluster upgraded minutes ago can show its old version, so a run's preview would upgrade (or skip) the wrong members; ARM's list is consistent")
	}
}
