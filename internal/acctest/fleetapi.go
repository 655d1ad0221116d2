package acctest

import (
	"context"
	"os"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// FleetAPI is a Fleet API client on the local fleet's ARM_* environment, for
// tests' checks and out-of-band changes (options: e.g. the preview api-version).
func FleetAPI(t testing.TB, options ...fleetapi.ClientOption) *fleetapi.Client {
	t.Helper()
	Current(t)
	s, err := azure.NewSession(context.Background(), azure.Config{
		SubscriptionID: os.Getenv("ARM_SUBSCRIPTION_ID"), TenantID: os.Getenv("ARM_TENANT_ID"),
		ClientID: os.Getenv("ARM_CLIENT_ID"), ClientSecret: os.Getenv("ARM_CLIENT_SECRET"),
		MetadataHost: os.Getenv("ARM_METADATA_HOSTNAME"),
	}, azure.Options{ProviderVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := fleetapi.NewClient(s, options...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Dig walks a JSON value (a state's attribute values) by map keys and list
// indices; nil where the path leads nowhere.
func Dig(v any, parts ...any) any {
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
