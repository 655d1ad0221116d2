package shared

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// Conversions between the backends' values and Terraform's.

// TimeString formats times the way every preview and status does: RFC 3339 in UTC.
func TimeString(t time.Time) types.String {
	if t.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

// Deref is *p, or T's zero value for nil.
func Deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// StringOrNull is s, or null for "" (the Fleet API omits what is unset).
func StringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// ObjectAsOptions decodes a computed object into a model.
var ObjectAsOptions = basetypes.ObjectAsOptions{}
