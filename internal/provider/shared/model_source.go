package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// ModelSource is what an operation reads its model from: a request's plan, state or configuration.
type ModelSource interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}
