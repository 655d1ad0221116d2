// Package scenarios holds more acceptance tests of fleet_update_run against a
// local fleet of its own (testdata/fleet.yaml, 10 simulated hours per real
// second), each test on update groups of its own: skip, stop and start,
// approval gates, destroy while running, request count while waiting, a
// cancelled apply, transient Fleet API faults, maintenance-window order and
// Pending, Consistent node images.
package scenarios

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

func TestMain(m *testing.M) {
	// Waits read the run every second here (30 s for users).
	os.Setenv("FLEET_TEST_UPDATE_RUN_POLL_INTERVAL", "1s")
	acctest.Main(m, "internal/provider/rolloutacc/scenarios/testdata/fleet.yaml")
}

const pollInterval = time.Second

var factories = map[string]func() (tfprotov6.ProviderServer, error){
	"fleet": providerserver.NewProtocol6WithError(provider.New("test")()),
}

// The fleet of testdata/fleet.yaml.
var fleet = fleetapi.FleetID{SubscriptionID: "00000000-0000-0000-0000-000000000004", ResourceGroupName: "rg-scenarios", Name: "scenarios"}

func at(root string, parts ...any) tfjsonpath.Path {
	p := tfjsonpath.New(root)
	for _, s := range parts {
		switch v := s.(type) {
		case string:
			p = p.AtMapKey(v)
		case int:
			p = p.AtSliceIndex(v)
		}
	}
	return p
}

// client is a Fleet API client on the local fleet's ARM_* environment, for checks.
func client(t *testing.T) *fleetapi.Client {
	t.Helper()
	acctest.Current(t)
	s, err := azure.NewSession(context.Background(), azure.Config{
		SubscriptionID: os.Getenv("ARM_SUBSCRIPTION_ID"), TenantID: os.Getenv("ARM_TENANT_ID"),
		ClientID: os.Getenv("ARM_CLIENT_ID"), ClientSecret: os.Getenv("ARM_CLIENT_SECRET"),
		MetadataHost: os.Getenv("ARM_METADATA_HOSTNAME"),
	}, azure.Options{ProviderVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := fleetapi.NewClient(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runGone is a CheckDestroy: the run is not in the fleet any more.
func runGone(t *testing.T, name string) func(*terraform.State) error {
	return func(*terraform.State) error {
		_, err := client(t).GetUpdateRun(context.Background(), fleet, name)
		if !fleetapi.IsNotFound(err) {
			return fmt.Errorf("update run %s still exists after destroy (err %v)", name, err)
		}
		return nil
	}
}

// runsNamed counts the fleet's update runs with that name prefix.
func runsNamed(t *testing.T, prefix string) ([]string, error) {
	runs, err := client(t).ListUpdateRuns(context.Background(), fleet)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range runs {
		if strings.HasPrefix(r.Name, prefix) {
			out = append(out, r.Name)
		}
	}
	return out, nil
}

func emulatorURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv("LOCALFLEET_URL")
	if base == "" {
		t.Fatal("LOCALFLEET_URL is not set")
	}
	return strings.TrimSuffix(base, "/")
}

// faultRule is the emulator's FaultRule.
type faultRule struct {
	Method            string `json:"method,omitempty"`
	Path              string `json:"path,omitempty"`
	Count             int    `json:"count,omitempty"`
	Status            int    `json:"status,omitempty"`
	RetryAfterSeconds int    `json:"retryAfterSeconds,omitempty"`
	Reset             bool   `json:"reset,omitempty"`
	FailOperation     bool   `json:"failOperation,omitempty"`
}

type faultStatus struct {
	ID        string    `json:"id"`
	Rule      faultRule `json:"rule"`
	Remaining int       `json:"remaining"`
	Hits      int       `json:"hits"`
}

func addFault(t *testing.T, r faultRule) {
	t.Helper()
	b, _ := json.Marshal(r)
	resp, err := http.Post(emulatorURL(t)+"/_emulator/faults", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST fault %s: %s", b, resp.Status)
	}
}

func listFaults(t *testing.T) []faultStatus {
	t.Helper()
	resp, err := http.Get(emulatorURL(t) + "/_emulator/faults")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Value []faultStatus `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Value
}

func clearFaults(t *testing.T) {
	req, _ := http.NewRequest(http.MethodDelete, emulatorURL(t)+"/_emulator/faults", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// request is one line of the emulator's request log (localfleet.log in the
// fleet's directory): "15:04:05.000 GET /path -> 200 (1ms)".
type request struct {
	at           time.Time
	method, path string
	status       string
}

var requestLine = regexp.MustCompile(`^(\d\d:\d\d:\d\d\.\d\d\d) (GET|PUT|POST|PATCH|DELETE|HEAD) (\S+) -> (\S+) `)

// requests reads the emulator's request log.
func requests(t *testing.T) []request {
	t.Helper()
	f, err := os.Open(filepath.Join(acctest.Current(t).Dir, "localfleet.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := requestLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ts, err := time.Parse("15:04:05.000", m[1])
		if err != nil {
			continue
		}
		out = append(out, request{at: ts, method: m[2], path: m[3], status: m[4]})
	}
	return out
}

func runStateOf(t *testing.T, name string) string {
	r, err := client(t).GetUpdateRun(context.Background(), fleet, name)
	if err != nil || r.Properties == nil || r.Properties.Status == nil || r.Properties.Status.Status == nil {
		return fmt.Sprint(err)
	}
	return string(r.Properties.Status.Status.State)
}

// memberStatusIs is a state check of a member's status attribute found by the
// member's name in status.stages[stage].groups[group].members: the Fleet API
// documents no order of a group's member statuses, so tests do not rely on one.
//
//nolint:unparam // stage is part of the path; the scenarios so far look at the first.
func memberStatusIs(stage, group int, member, attr string, want *regexp.Regexp) statecheck.StateCheck {
	return memberStatusCheck{res: runAddress, stage: stage, group: group, member: member, attr: attr, want: want}
}

type memberStatusCheck struct {
	res, member, attr string
	stage, group      int
	want              *regexp.Regexp
}

func (c memberStatusCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("no state")
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != c.res {
			continue
		}
		members := dig(r.AttributeValues["status"], "stages", c.stage, "groups", c.group, "members")
		list, _ := members.([]any)
		for _, m := range list {
			mm, _ := m.(map[string]any)
			if mm["name"] != c.member {
				continue
			}
			got, _ := mm[c.attr].(string)
			if !c.want.MatchString(got) {
				resp.Error = fmt.Errorf("%s: member %s %s = %q, want match %s", c.res, c.member, c.attr, got, c.want)
			}
			return
		}
		resp.Error = fmt.Errorf("%s: no member %s in status stage %d group %d (%v)", c.res, c.member, c.stage, c.group, members)
		return
	}
	resp.Error = fmt.Errorf("no resource %s in state", c.res)
}

func dig(v any, parts ...any) any {
	for _, p := range parts {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func exactly(s string) *regexp.Regexp { return regexp.MustCompile("^" + regexp.QuoteMeta(s) + "$") }
