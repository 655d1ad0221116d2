package backend

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// SaveETag keeps the ETag the Fleet API returned, for the next change's If-Match; none ("") keeps
// the one saved before. Fleet API children guard their writes with it (update strategies and runs,
// managed namespaces): a write that lost a race to another writer changes nothing.
func SaveETag(ctx context.Context, p shared.PrivateSetter, etag string) diag.Diagnostics {
	if etag == "" {
		return nil
	}
	b, _ := json.Marshal(etag)
	return p.SetKey(ctx, etagKey, b)
}

// ETagPrecondition is If-Match with the ETag Terraform last saw, nil if none.
func ETagPrecondition(ctx context.Context, p shared.PrivateGetter) (*fleetapi.Precondition, diag.Diagnostics) {
	b, diags := p.GetKey(ctx, etagKey)
	var etag string
	if len(b) == 0 || json.Unmarshal(b, &etag) != nil || etag == "" {
		return nil, diags
	}
	return &fleetapi.Precondition{IfMatch: etag}, diags
}

// etagKey is the private-state key of the resource's last ETag.
const etagKey = "etag"
