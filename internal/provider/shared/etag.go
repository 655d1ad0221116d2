package shared

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// PrivateSetter is the private state a response carries (resp.Private).
type PrivateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// PrivateGetter is the private state a request carries (req.Private).
type PrivateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// SaveETag keeps the ETag the Fleet API returned, for the next change's If-Match; none ("") keeps
// the one saved before.
func SaveETag(ctx context.Context, p PrivateSetter, etag string) diag.Diagnostics {
	if etag == "" {
		return nil
	}
	b, _ := json.Marshal(etag)
	return p.SetKey(ctx, etagKey, b)
}

// ETagPrecondition is If-Match with the ETag Terraform last saw, nil if none.
func ETagPrecondition(ctx context.Context, p PrivateGetter) (*fleetapi.Precondition, diag.Diagnostics) {
	b, diags := p.GetKey(ctx, etagKey)
	var etag string
	if len(b) == 0 || json.Unmarshal(b, &etag) != nil || etag == "" {
		return nil, diags
	}
	return &fleetapi.Precondition{IfMatch: etag}, diags
}

const // etagKey is the private-state key of the resource's last ETag.
etagKey = "etag"
