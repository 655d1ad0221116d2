package emulator_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// TestManagedNamespaceMemberCredentials: a managed namespace's listMemberCredentials answers for
// the members the hub says it is placed on when asked (each request asks again): a placed member
// with an API server Succeeded with its kubeconfig, a member it is not placed on Failed with
// ManagedNamespaceNotPlaced naming the namespace, the member and where it is placed, a name that
// is no member ResourceNotFound, a placed simulated member CredentialsUnavailable; without names,
// the placed members in the fleet's order. The fleet's own action does not ask the hub; a hub
// that cannot say is a 500 naming the namespace.
func TestManagedNamespaceMemberCredentials(t *testing.T) {
	hooks := newFakeNamespaces()
	fx := newNSFixture(t, hooks)
	fx.put(t, "team-a", namespaceBody(), nil, http.StatusCreated)
	hooks.setPlaced("team-a", "canary-east", "prod-east-1")
	opts := &arm.ClientOptions{ClientOptions: fx.opts}
	opts.PerCallPolicies = []policy.Policy{instantOperations{}}
	pc, err := fleetapi.NewClientWithOptions(fx.cred, opts, nil, fleetapi.WithAPIVersion(fleetapi.PreviewAPIVersion))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	byName := func(names ...string) map[string]fleetapi.FleetMemberCredentialResult {
		t.Helper()
		res, err := pc.ListManagedNamespaceMemberCredentials(ctx, fx.fleet, "team-a", names)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]fleetapi.FleetMemberCredentialResult{}
		for _, r := range res {
			out[r.Name] = r
		}
		return out
	}
	failedWith := func(r fleetapi.FleetMemberCredentialResult, code, msg string) {
		t.Helper()
		if r.Status != fleetapi.MemberCredentialFailed || r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message, msg) || r.Kubeconfig != "" {
			t.Errorf("%s: %+v (error %+v), want Failed %s saying %q", r.Name, r, r.Error, code, msg)
		}
	}

	got := byName("canary-east", "prod-east-2", "nobody", "prod-east-1")
	if kc, err := got["canary-east"].DecodeKubeconfig(); err != nil || !bytes.Equal(kc, canaryKubeconfig) {
		t.Errorf("canary-east (placed, with an API server): %q (%v)", kc, err)
	}
	failedWith(got["prod-east-2"], "ManagedNamespaceNotPlaced", "The managed namespace 'team-a' is not placed on fleet member 'prod-east-2' (it is placed on canary-east, prod-east-1).")
	failedWith(got["nobody"], "ResourceNotFound", "'nobody' was not found")
	failedWith(got["prod-east-1"], "CredentialsUnavailable", "simulated member")
	if len(got) != 4 {
		t.Errorf("%d results, want 4: %v", len(got), got)
	}
	res, err := pc.ListManagedNamespaceMemberCredentials(ctx, fx.fleet, "team-a", nil)
	var names []string
	for _, r := range res {
		names = append(names, r.Name)
	}
	if err != nil || !reflect.DeepEqual(names, []string{"canary-east", "prod-east-1"}) {
		t.Errorf("without names: %v (%v), want the placed members [canary-east prod-east-1]", names, err)
	}

	// The hub moves it: each request asks again.
	hooks.setPlaced("team-a", "prod-east-1")
	failedWith(byName("canary-east")["canary-east"], "ManagedNamespaceNotPlaced", "(it is placed on prod-east-1)")
	hooks.setPlaced("team-a")
	failedWith(byName("canary-east")["canary-east"], "ManagedNamespaceNotPlaced", "(it is placed on no member)")
	if res, err := pc.ListManagedNamespaceMemberCredentials(ctx, fx.fleet, "team-a", nil); err != nil || len(res) != 0 {
		t.Errorf("without names, placed nowhere: %+v (%v), want no results", res, err)
	}

	// The fleet's action is not scoped to a namespace: no hub question, canary-east Succeeded.
	asked := hooks.askedCount()
	fleetRes, err := pc.ListMemberCredentials(ctx, fx.fleet, []string{"canary-east"})
	if err != nil || len(fleetRes) != 1 || fleetRes[0].Status != fleetapi.MemberCredentialSucceeded || hooks.askedCount() != asked {
		t.Errorf("fleet listMemberCredentials: %+v (%v), the hub asked %d times", fleetRes, err, hooks.askedCount()-asked)
	}

	hooks.mu.Lock()
	hooks.hubErr = errors.New("hub unreachable")
	hooks.mu.Unlock()
	resp, b := fx.sendAt(t, http.MethodPost, fx.nsPath("team-a")+"/listMemberCredentials", fleetapi.PreviewAPIVersion, map[string]any{})
	if e := armError(t, b); resp.StatusCode != http.StatusInternalServerError || e.Code != "ManagedNamespacePlacementUnavailable" ||
		!strings.Contains(e.Message, "'team-a'") || !strings.Contains(e.Message, "hub unreachable") {
		t.Errorf("hub failing: %d %+v, want 500 ManagedNamespacePlacementUnavailable naming team-a and the hub's error", resp.StatusCode, e)
	}
}
