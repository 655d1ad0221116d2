package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Private state: what a resource keeps beside its state that Terraform does not show (ETags,
// a placement's scheduling state).

// PrivateSetter is the private state a response carries (resp.Private).
type PrivateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// PrivateGetter is the private state a request carries (req.Private).
type PrivateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}
